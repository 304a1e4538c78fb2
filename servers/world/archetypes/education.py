"""Mathematics & Computation > Education & Assessment: courses, enrollments, coursework and
proctored exam sittings."""

from ..spec import (
    Archetype,
    Capacity,
    DateOrder,
    Entity,
    Field,
    Leaf,
    Lifecycle,
    MaxPerParent,
    RefInState,
    Transition,
)

COURSE_ENROLLMENT = Archetype(
    id="course_enrollment", l2="Education & Assessment", title="Course enrollment and grading",
    description="Courses with limited seats, enrolled students, assignments and graded "
                "submissions, as in a learning management system.",
    primary="enrollment", people="student",
    features=("comments", "attachments", "notifications", "scheduling", "audit_log", "search",
              "tags", "payments", "holidays"),
    entities=(
        Entity("course", "courses", label="title", count=20,
               description="A course offering for one term with a seat limit.", fields=(
            Field("title", "text", unique=True, vocab=(
                "Calculus I", "Linear Algebra", "Discrete Mathematics", "Intro to Statistics",
                "Differential Equations", "Probability Theory", "Algebra II", "Geometry",
                "Pre-Calculus", "Number Theory", "Real Analysis", "Numerical Methods",
                "Mathematical Modelling", "AP Calculus BC", "Data Literacy", "Abstract Algebra",
                "Topology", "Combinatorics", "Statistical Inference", "Optimization")),
            Field("subject", "enum", filterable=True, values=(
                "mathematics", "statistics", "computer_science", "physics", "economics")),
            Field("term", "enum", filterable=True,
                  values=("fall", "spring", "summer", "winter")),
            Field("credits", "int", min=1, max=6),
            Field("seat_limit", "int", min=4, max=12,
                  description="Seats in the course; enrolled students never exceed it"),
            Field("instructor_name", "name"),
        ), lifecycle=Lifecycle(
            states=("open", "draft", "closed", "archived"), initial="draft",
            frozen=("archived",), seed_weights=(5, 1, 2, 1),
            transitions=(
                Transition("open_enrollment", ("draft", "closed"), "open",
                           "Open the course for enrollment."),
                Transition("close_enrollment", ("open",), "closed",
                           "Stop accepting enrollments."),
                Transition("archive", ("closed",), "archived",
                           "Archive a finished course."),
            ))),
        Entity("student", "students", label="full_name", count=120, fields=(
            Field("student_number", "code", vocab=("STU",)),
            Field("full_name", "name"),
            Field("email", "email", unique=True),
            Field("grade_level", "enum", filterable=True, values=(
                "freshman", "sophomore", "junior", "senior", "graduate", "continuing_ed")),
            Field("advisor_name", "name", required=False),
        )),
        Entity("enrollment", "enrollments", label="enrollment_code", count=200,
               description="A student's seat in a course.", fields=(
            Field("enrollment_code", "code", vocab=("ENR",)),
            Field("course_id", "ref", ref="course", mutable=False),
            Field("student_id", "ref", ref="student", mutable=False),
            Field("grading_basis", "enum", values=("letter", "pass_fail", "audit")),
            Field("final_grade", "enum", required=False,
                  values=("A", "B", "C", "D", "F", "P", "I")),
            Field("completed_on", "date", required=False, mutable=False),
        ), lifecycle=Lifecycle(
            states=("enrolled", "waitlisted", "completed", "withdrawn", "dropped"),
            initial="enrolled", frozen=("completed", "withdrawn", "dropped"),
            seed_weights=(6, 1, 4, 1, 1),
            transitions=(
                Transition("complete", ("enrolled",), "completed",
                           "Record that the student finished the course.",
                           stamp="completed_on"),
                Transition("withdraw", ("enrolled",), "withdrawn",
                           "Withdraw the student after the drop deadline (W on transcript)."),
                Transition("drop", ("enrolled", "waitlisted"), "dropped",
                           "Drop the enrollment before the deadline."),
            )),
            constraints=(
                RefInState("course_id", ("open",)),
                Capacity("course_id", "seat_limit", ("enrolled",)),
            )),
        Entity("assignment", "assignments", label="title", count=60, fields=(
            Field("course_id", "ref", ref="course", mutable=False),
            Field("title", "text", vocab=(
                "Problem Set 1", "Problem Set 2", "Midterm Project", "Weekly Quiz",
                "Lab Report", "Proof Portfolio", "Final Project Proposal", "Reading Response",
                "Group Presentation", "Take-home Exam", "Homework 3", "Practice Test")),
            Field("assignment_type", "enum",
                  values=("homework", "quiz", "project", "exam", "lab")),
            Field("opens_on", "date", min=-90, max=30),
            Field("due_on", "date"),
            Field("max_points", "int", min=10, max=100),
        ), lifecycle=Lifecycle(
            states=("published", "draft", "closed"), initial="draft",
            seed_weights=(4, 1, 3),
            transitions=(
                Transition("publish", ("draft",), "published", "Publish to students."),
                Transition("close", ("published",), "closed",
                           "Stop accepting submissions."),
            )),
            constraints=(DateOrder("opens_on", "due_on"),)),
        Entity("submission", "submissions", label="submission_code", count=200, fields=(
            Field("submission_code", "code", vocab=("SUB",)),
            Field("assignment_id", "ref", ref="assignment", mutable=False),
            Field("student_id", "ref", ref="student", mutable=False),
            Field("score", "int", min=0, max=100, required=False),
            Field("feedback", "text", required=False, vocab=(
                "Great work, clear reasoning", "Check your units", "Show intermediate steps",
                "Late penalty applied", "Excellent proof structure", "Revise question 3",
                "Well organised", "Cite your sources", "Good use of examples",
                "Incomplete answer to part b")),
            Field("graded_on", "date", required=False, mutable=False),
        ), lifecycle=Lifecycle(
            states=("submitted", "graded", "returned", "resubmit_requested"),
            initial="submitted", frozen=("returned",), seed_weights=(3, 4, 3, 1),
            transitions=(
                Transition("grade", ("submitted",), "graded", "Grade the submission.",
                           stamp="graded_on"),
                Transition("return", ("graded",), "returned",
                           "Release the grade and feedback to the student."),
                Transition("request_resubmission", ("submitted", "graded"),
                           "resubmit_requested", "Ask the student to resubmit."),
            )),
            constraints=(
                RefInState("assignment_id", ("published",)),
                MaxPerParent("student_id", 4, ("submitted",)),
            )),
    ),
)

EXAM_SITTINGS = Archetype(
    id="exam_sittings", l2="Education & Assessment", title="Proctored exam sittings",
    description="A testing programme: exams, scheduled sittings with limited seats, candidates "
                "and their registrations and scores.",
    primary="registration", people="candidate",
    features=("notifications", "payments", "scheduling", "geo", "audit_log", "holidays",
              "currency", "attachments"),
    entities=(
        Entity("exam", "exams", label="title", count=15, fields=(
            Field("exam_code", "code", vocab=("EXM",)),
            Field("title", "text", unique=True, vocab=(
                "SAT Math", "AP Calculus AB", "AP Statistics", "GRE Quantitative",
                "GMAT Focus", "Actuarial Exam P", "Actuarial Exam FM", "IB Mathematics HL",
                "A-Level Further Maths", "Cambridge IGCSE Mathematics",
                "ACT Mathematics", "CFA Level I", "TOEFL iBT", "IELTS Academic",
                "Praxis Core Math")),
            Field("duration_minutes", "int", min=45, max=240),
            Field("passing_score", "int", min=40, max=80),
            Field("fee", "money", min=5_000, max=45_000),
            Field("delivery", "enum", filterable=True,
                  values=("test_center", "online_proctored", "paper")),
        )),
        Entity("sitting", "sittings", label="venue_name", count=40,
               description="One scheduled sitting of an exam at a venue.", fields=(
            Field("exam_id", "ref", ref="exam", mutable=False),
            Field("venue_name", "text", vocab=(
                "North Campus Hall B", "City Test Centre", "Library Room 204",
                "Science Building Lab 3", "Convention Centre Suite 12", "Online Session",
                "Community College Annex", "Downtown Testing Suite", "Exam Hall A",
                "Business School Room 110")),
            Field("city", "pool", source="city", filterable=True),
            Field("sits_on", "date", min=-60, max=90),
            Field("seat_count", "int", min=4, max=12),
            Field("proctor_name", "name"),
        ), lifecycle=Lifecycle(
            states=("open", "scheduled", "closed", "completed", "cancelled"),
            initial="scheduled", frozen=("completed", "cancelled"),
            seed_weights=(5, 2, 2, 3, 1),
            transitions=(
                Transition("open_registration", ("scheduled",), "open",
                           "Open the sitting for registrations."),
                Transition("close_registration", ("open",), "closed",
                           "Close registrations for the sitting."),
                Transition("complete", ("closed",), "completed", "Mark the sitting as held."),
                Transition("cancel", ("scheduled", "open", "closed"), "cancelled",
                           "Cancel the sitting."),
            ))),
        Entity("candidate", "candidates", label="full_name", count=150, fields=(
            Field("candidate_number", "code", vocab=("CAN",)),
            Field("full_name", "name"),
            Field("email", "email", unique=True),
            Field("country", "pool", source="country"),
            Field("date_of_birth", "date", min=-20_000, max=-5_500),
            Field("needs_accommodation", "bool"),
        )),
        Entity("registration", "registrations", label="confirmation_code", count=220, fields=(
            Field("confirmation_code", "code", vocab=("REG",)),
            Field("sitting_id", "ref", ref="sitting", mutable=False),
            Field("candidate_id", "ref", ref="candidate", mutable=False),
            Field("accommodation", "enum", values=(
                "none", "extra_time", "separate_room", "screen_reader", "rest_breaks")),
            Field("scaled_score", "int", min=0, max=100, required=False),
            Field("checked_in_on", "date", required=False, mutable=False),
        ), lifecycle=Lifecycle(
            states=("registered", "checked_in", "scored", "no_show", "cancelled"),
            initial="registered", frozen=("scored", "no_show", "cancelled"),
            seed_weights=(5, 1, 5, 1, 2),
            transitions=(
                Transition("check_in", ("registered",), "checked_in",
                           "Check the candidate in at the venue.", stamp="checked_in_on"),
                Transition("record_score", ("checked_in",), "scored",
                           "Record that the exam was scored."),
                Transition("mark_no_show", ("registered",), "no_show",
                           "Mark a candidate who did not attend."),
                Transition("cancel", ("registered",), "cancelled",
                           "Cancel the registration."),
            )),
            constraints=(
                RefInState("sitting_id", ("open",)),
                Capacity("sitting_id", "seat_count", ("registered", "checked_in", "scored")),
            )),
    ),
)

ARCHETYPES = (COURSE_ENROLLMENT, EXAM_SITTINGS)

_C, _E = "course_enrollment", "exam_sittings"

LEAVES = (
    Leaf("university-course-registration", "University course registration system",
         "A university registrar's system for course sections, seat limits, student "
         "enrollments and final grades.", _C),
    Leaf("k12-math-classroom-lms", "K-12 math classroom LMS",
         "A school's learning management system where math teachers post problem sets and "
         "grade student submissions.", _C),
    Leaf("community-college-enrollment", "Community college enrollment portal",
         "A community college portal for enrolling in credit and continuing-education "
         "courses.", _C),
    Leaf("online-bootcamp-cohorts", "Coding bootcamp cohort platform",
         "An online bootcamp's platform for cohort courses, weekly projects and graded "
         "submissions.", _C),
    Leaf("mooc-course-platform", "MOOC course platform",
         "A Coursera-like platform with course runs, learner enrollments and peer-graded "
         "assignments.", _C),
    Leaf("summer-math-camp-registration", "Summer math camp registration",
         "Registration and coursework tracking for a competitive summer mathematics camp.",
         _C),
    Leaf("corporate-training-academy", "Corporate training academy",
         "An employer's internal academy where staff enrol in compliance and skills courses "
         "and submit assessments.", _C),
    Leaf("language-school-classes", "Language school class manager",
         "A language school's class schedule, student enrollments and homework marking.", _C),
    Leaf("homeschool-coop-classes", "Homeschool co-op class sign-ups",
         "A homeschool co-operative's shared classes with small seat limits and parent-graded "
         "work.", _C),
    Leaf("tutoring-center-programs", "Tutoring center program tracker",
         "A tutoring centre's small-group programmes, enrolled pupils and practice "
         "worksheets.", _C),
    Leaf("graduate-seminar-registry", "Graduate seminar registry",
         "A graduate school's seminar sign-up with tight seat caps and graded papers.", _C),
    Leaf("music-conservatory-studios", "Music conservatory studio classes",
         "A conservatory's theory and ensemble classes with enrollments and juried "
         "assignments.", _C),
    Leaf("adult-evening-classes", "Adult evening class booking",
         "A city adult-education service offering evening courses with limited places.", _C),
    Leaf("medical-school-curriculum", "Medical school curriculum manager",
         "A medical school's modules, student enrollments, case write-ups and assessments.",
         _C),
    Leaf("flight-school-ground-courses", "Flight school ground courses",
         "Ground-school courses for student pilots with quizzes and graded navigation "
         "exercises.", _C),
    Leaf("nursing-ce-credits", "Nursing continuing-education credits",
         "A continuing-education provider tracking nurses' course enrollments and completed "
         "credit hours.", _C),
    Leaf("online-high-school", "Virtual high school",
         "An accredited online high school's courses, enrolled students and teacher-graded "
         "coursework.", _C),
    Leaf("math-olympiad-training", "Math olympiad training program",
         "An olympiad training programme with problem-solving courses and graded proof "
         "sets.", _C),
    Leaf("data-science-certificate", "Data science certificate program",
         "A university extension's certificate courses with projects and capstone "
         "submissions.", _C),
    Leaf("early-childhood-workshops", "Early childhood educator workshops",
         "Professional-development workshops for preschool teachers with reflective "
         "assignments.", _C),
    Leaf("driving-school-theory-classes", "Driving school theory classes",
         "A driving school's theory classes and practice quizzes before the licence test.", _C),
    Leaf("sat-prep-courses", "SAT prep course provider",
         "A test-prep company's SAT and ACT courses with practice-test submissions.", _C),
    Leaf("art-school-studio-courses", "Art school studio courses",
         "An art school's studio courses with capped enrollment and critique submissions.", _C),
    Leaf("executive-mba-modules", "Executive MBA modules",
         "An executive MBA programme's modules, cohort enrollments and case-study "
         "assignments.", _C),
    Leaf("standardized-test-center", "Standardized test center scheduling",
         "A test centre's calendar of SAT, ACT and AP sittings with seat-limited "
         "registrations.", _E),
    Leaf("professional-certification-exams", "Professional certification exam delivery",
         "Delivery of professional certification exams: sittings, candidate registrations and "
         "scores.", _E),
    Leaf("actuarial-exam-registration", "Actuarial exam registration",
         "Registration and scoring for actuarial society exams at test centres.", _E),
    Leaf("language-proficiency-testing", "Language proficiency testing",
         "Scheduling and results for TOEFL- and IELTS-style language tests.", _E),
    Leaf("online-proctoring-service", "Online exam proctoring service",
         "A remote proctoring service's scheduled sessions, candidate check-ins and flagged "
         "no-shows.", _E),
    Leaf("university-final-exams", "University final exam scheduler",
         "A university's final-exam sittings, room seats and student registrations with "
         "accommodations.", _E),
    Leaf("driving-license-theory-test", "Driving licence theory test booking",
         "A licensing authority's theory-test sittings and candidate bookings.", _E),
    Leaf("it-certification-testing", "IT certification testing center",
         "A Pearson VUE-like centre for vendor IT certification exams.", _E),
    Leaf("medical-board-exams", "Medical board exam administration",
         "Administration of medical licensing board exams with strict seat counts and "
         "check-in.", _E),
    Leaf("bar-exam-administration", "Bar exam administration",
         "A state bar's exam sittings, applicant registrations, testing accommodations and "
         "scores.", _E),
    Leaf("school-entrance-exams", "School entrance exam registration",
         "Entrance-exam sittings for selective secondary schools and their applicants.", _E),
    Leaf("math-competition-rounds", "Math competition rounds",
         "Regional maths competition rounds with venue seat limits and scored participants.",
         _E),
    Leaf("music-grade-exams", "Music grade exam bookings",
         "Graded music examinations booked by teachers for their pupils at exam venues.", _E),
    Leaf("placement-test-scheduling", "College placement test scheduling",
         "A college's math and English placement tests with sittings and scores.", _E),
    Leaf("trade-licensing-exams", "Trade licensing exams",
         "Electrician and plumber licensing exams with candidate registrations and results.",
         _E),
    Leaf("accounting-cpa-exam-sittings", "CPA exam sitting registrations",
         "CPA exam section sittings, candidate notices to schedule and scores.", _E),
)
