"""System & Cloud Infrastructure > Cloud Compute & Storage: virtual machines with quotas and
volumes, and object storage buckets with access keys."""

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

_REGIONS = ("us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-southeast-1",
            "ap-northeast-1", "sa-east-1")

COMPUTE = Archetype(
    id="compute_instances", l2="Cloud Compute & Storage", title="Compute instances",
    description="Cloud projects with an instance quota, virtual machines that are started, "
                "stopped and terminated, and block volumes attached to them.",
    primary="instance", people="",
    features=("tags", "audit_log", "notifications", "comments", "search", "currency",
              "scheduling"),
    entities=(
        Entity("cloud_project", "cloud_projects", label="name", count=15,
               description="A billing and quota boundary for resources.", fields=(
            Field("name", "text", unique=True, vocab=(
                "prod-web", "staging-web", "data-platform", "ml-research", "shared-services",
                "qa-sandbox", "analytics", "edge-cdn", "payments-prod", "dev-playground",
                "security-tools", "legacy-erp")),
            Field("billing_account", "text", vocab=(
                "BA-0193-EU", "BA-0471-US", "BA-0822-AP", "BA-1004-EU", "BA-1177-US",
                "BA-1290-SA", "BA-1432-EU", "BA-1588-US")),
            Field("instance_quota", "int", min=3, max=10,
                  description="Most instances that may exist (not terminated)"),
            Field("monthly_budget", "money", min=50_000, max=5_000_000),
            Field("environment", "enum", values=("production", "staging", "development",
                                                 "sandbox"), filterable=True),
        ), lifecycle=Lifecycle(
            states=("active", "suspended", "shut_down"), initial="active",
            frozen=("shut_down",), seed_weights=(8, 1, 1),
            transitions=(
                Transition("suspend", ("active",), "suspended",
                           "Suspend the project (billing issue or abuse)."),
                Transition("reinstate", ("suspended",), "active", "Reinstate the project."),
                Transition("shut_down", ("active", "suspended"), "shut_down",
                           "Shut the project down for deletion."),
            ))),
        Entity("instance", "instances", label="name", count=90,
               description="A virtual machine.", fields=(
            Field("name", "text", vocab=(
                "web-1", "web-2", "api-gateway", "worker-batch", "db-replica", "bastion",
                "jenkins-agent", "redis-cache", "kafka-broker", "gpu-trainer", "vpn-gw",
                "etl-runner")),
            Field("project_id", "ref", ref="cloud_project", mutable=False, filterable=True),
            Field("machine_type", "enum", filterable=True, values=(
                "t3.micro", "t3.medium", "m6i.large", "m6i.xlarge", "c6g.2xlarge",
                "r6i.4xlarge", "g5.xlarge", "e2-standard-4")),
            Field("region", "enum", values=_REGIONS, filterable=True, mutable=False),
            Field("image", "enum", values=("ubuntu-22.04", "ubuntu-24.04", "debian-12",
                                           "amazon-linux-2023", "rhel-9", "windows-2022")),
            Field("private_ip", "text", mutable=False, vocab=(
                "10.0.1.12", "10.0.1.37", "10.0.2.8", "10.0.3.101", "10.1.0.44",
                "10.1.4.9", "172.16.0.21", "172.16.5.60", "192.168.10.14", "10.2.7.200")),
            Field("launched_on", "date", required=False, mutable=False),
        ), lifecycle=Lifecycle(
            states=("running", "pending", "stopped", "terminated"), initial="pending",
            frozen=("terminated",), seed_weights=(8, 1, 3, 2),
            transitions=(
                Transition("boot", ("pending",), "running", "Finish provisioning and boot.",
                           stamp="launched_on"),
                Transition("stop", ("running",), "stopped", "Stop the instance."),
                Transition("start", ("stopped",), "running", "Start a stopped instance."),
                Transition("terminate", ("pending", "running", "stopped"), "terminated",
                           "Terminate the instance and release its resources."),
            )),
            constraints=(
                Capacity("project_id", "instance_quota", ("running", "pending", "stopped")),
                RefInState("project_id", ("active",)),
            )),
        Entity("block_volume", "block_volumes", label="name", count=120,
               description="A persistent disk attached to an instance.", fields=(
            Field("name", "text", vocab=(
                "root", "data", "logs", "scratch", "db-data", "backup-staging", "swap",
                "docker", "models", "wal")),
            Field("instance_id", "ref", ref="instance", mutable=False, filterable=True),
            Field("volume_type", "enum", values=("gp3", "io2", "st1", "sc1", "pd-ssd"),
                  filterable=True),
            Field("size_gb", "int", min=8, max=16_000),
            Field("encrypted", "bool"),
            Field("iops", "int", min=100, max=64_000),
        ), lifecycle=Lifecycle(
            states=("attached", "detached", "deleted"), initial="attached",
            frozen=("deleted",), seed_weights=(6, 2, 1),
            transitions=(
                Transition("detach", ("attached",), "detached", "Detach the volume."),
                Transition("reattach", ("detached",), "attached",
                           "Attach the volume again."),
                Transition("delete", ("detached",), "deleted", "Delete the volume."),
            )),
            constraints=(
                MaxPerParent("instance_id", 4, ("attached",)),
                RefInState("instance_id", ("running", "pending", "stopped")),
            )),
    ),
)

STORAGE = Archetype(
    id="object_storage", l2="Cloud Compute & Storage", title="Object storage",
    description="Storage accounts with a bucket quota, buckets with storage classes and "
                "versioning, and access keys (at most two active per account).",
    primary="bucket", people="",
    features=("tags", "audit_log", "notifications", "sharing", "search", "currency",
              "comments"),
    entities=(
        Entity("storage_account", "storage_accounts", label="name", count=45,
               description="A customer account of the storage service.", fields=(
            Field("name", "text", unique=True, vocab=(
                "acme-media", "northwind-backups", "contoso-logs", "globex-analytics",
                "initech-archive", "umbrella-research", "hooli-assets", "stark-telemetry",
                "wayne-docs", "tyrell-models", "soylent-exports", "cyberdyne-ci")),
            Field("owner_email", "email", unique=True),
            Field("plan", "enum", values=("free", "standard", "business", "enterprise"),
                  filterable=True),
            Field("bucket_quota", "int", min=2, max=6),
        ), lifecycle=Lifecycle(
            states=("active", "suspended", "closed"), initial="active", frozen=("closed",),
            seed_weights=(8, 1, 1),
            transitions=(
                Transition("suspend", ("active",), "suspended", "Suspend for non-payment."),
                Transition("reactivate", ("suspended",), "active", "Reactivate the account."),
                Transition("close", ("active", "suspended"), "closed", "Close the account."),
            ))),
        Entity("bucket", "buckets", label="name", count=100,
               description="A container for objects.", fields=(
            Field("name", "text", unique=True, mutable=False, vocab=(
                "media-uploads", "db-backups", "app-logs", "static-site", "ml-datasets",
                "invoices-archive", "video-transcodes", "terraform-state", "ci-artifacts",
                "data-lake-raw", "thumbnails", "audit-exports")),
            Field("account_id", "ref", ref="storage_account", mutable=False, filterable=True),
            Field("region", "enum", values=_REGIONS, filterable=True, mutable=False),
            Field("storage_class", "enum", filterable=True, values=(
                "standard", "infrequent_access", "archive", "intelligent_tiering")),
            Field("versioning", "bool"),
            Field("public_access", "bool"),
            Field("object_count", "int", min=0, max=40_000_000),
        ), lifecycle=Lifecycle(
            states=("active", "read_only", "deleted"), initial="active", frozen=("deleted",),
            seed_weights=(8, 1, 2),
            transitions=(
                Transition("make_read_only", ("active",), "read_only",
                           "Block writes (legal hold)."),
                Transition("make_writable", ("read_only",), "active", "Allow writes again."),
                Transition("delete", ("active", "read_only"), "deleted",
                           "Delete the empty bucket."),
            )),
            constraints=(
                Capacity("account_id", "bucket_quota", ("active", "read_only")),
                RefInState("account_id", ("active",)),
            )),
        Entity("access_key", "access_keys", label="description_text", count=70,
               description="A key pair for programmatic access.", fields=(
            Field("key_id", "code", vocab=("AKIA",)),
            Field("account_id", "ref", ref="storage_account", mutable=False, filterable=True),
            Field("description_text", "text", vocab=(
                "CI uploader", "Backup agent", "Log shipper", "Analytics reader",
                "CDN origin", "Mobile app uploads", "Data science notebooks",
                "Partner SFTP bridge", "Terraform state", "Legacy integration")),
            Field("permission", "enum", values=("read_only", "read_write", "write_only",
                                                "admin"), filterable=True),
            Field("issued_on", "date", min=-400, max=0, mutable=False),
            Field("expires_on", "date", mutable=False),
        ), lifecycle=Lifecycle(
            states=("active", "inactive", "deleted"), initial="active", frozen=("deleted",),
            seed_weights=(3, 3, 2),
            transitions=(
                Transition("deactivate", ("active",), "inactive", "Deactivate the key."),
                Transition("activate", ("inactive",), "active", "Reactivate the key."),
                Transition("delete", ("inactive",), "deleted", "Delete an inactive key."),
            )),
            constraints=(
                MaxPerParent("account_id", 2, ("active",)),
                DateOrder("issued_on", "expires_on"),
                RefInState("account_id", ("active", "suspended")),
            )),
    ),
)

ARCHETYPES = (COMPUTE, STORAGE)

_C, _S = "compute_instances", "object_storage"

LEAVES = (
    Leaf("ec2-like-vm-console", "EC2-like virtual machine console",
         "A public cloud's compute console: projects with instance quotas, virtual machines "
         "and attached block volumes.", _C),
    Leaf("private-openstack-cloud", "Private OpenStack-style cloud",
         "A company's private cloud where teams launch VMs within project quotas.", _C),
    Leaf("vps-hosting-control-panel", "VPS hosting control panel",
         "A VPS host's customer panel for servers and extra disks.", _C),
    Leaf("university-research-compute", "University research cloud",
         "A university research cloud allocating VMs to lab projects.", _C),
    Leaf("gpu-cloud-instances", "GPU cloud instances",
         "A GPU cloud renting training instances with scratch volumes.", _C),
    Leaf("edge-compute-nodes", "Edge compute node manager",
         "An edge platform's small VMs near users with local disks.", _C),
    Leaf("game-server-hosting", "Game server hosting",
         "A game-server host where clans rent dedicated server instances.", _C),
    Leaf("dev-environment-vms", "Developer workstation VMs",
         "Cloud developer workstations per team with quota limits.", _C),
    Leaf("windows-virtual-desktops", "Virtual desktop hosts",
         "A virtual desktop service's session hosts and profile disks.", _C),
    Leaf("sovereign-cloud-compute", "Sovereign cloud compute",
         "A national sovereign cloud offering VMs to public agencies.", _C),
    Leaf("hpc-burst-cloud", "HPC burst cloud",
         "A cluster's cloud-burst pool of compute nodes for simulation jobs.", _C),
    Leaf("managed-kubernetes-node-pools", "Kubernetes node VMs",
         "The worker VMs behind managed Kubernetes node pools.", _C),
    Leaf("startup-credits-cloud", "Startup credits cloud account",
         "A startup program's cloud accounts with budget-limited projects.", _C),
    Leaf("bare-metal-cloud", "Bare-metal cloud servers",
         "A bare-metal provider's dedicated servers with NVMe volumes.", _C),
    Leaf("ci-ephemeral-vms", "Ephemeral CI VMs",
         "Short-lived VMs spun up for builds and tests.", _C),
    Leaf("telco-cloud-vnfs", "Telco cloud virtual functions",
         "A telecom cloud hosting virtual network functions as VMs.", _C),
    Leaf("bank-private-cloud", "Bank private cloud",
         "A bank's private cloud with strict per-project quotas.", _C),
    Leaf("classroom-lab-vms", "Classroom lab VMs",
         "Lab VMs for students in networking and security courses.", _C),
    Leaf("sap-hana-cloud-hosts", "ERP host instances",
         "Large-memory VMs hosting ERP databases.", _C),
    Leaf("media-render-farm-cloud", "Cloud render farm",
         "A VFX studio's cloud render nodes with scratch storage.", _C),
    Leaf("s3-like-object-storage", "S3-like object storage",
         "An object storage service: accounts with bucket quotas, buckets with storage "
         "classes, and access keys.", _S),
    Leaf("backup-storage-service", "Cloud backup storage",
         "A backup vendor's storage accounts and versioned backup buckets.", _S),
    Leaf("media-asset-storage", "Media asset storage",
         "A video platform's storage for uploads and transcodes.", _S),
    Leaf("data-lake-storage", "Data lake storage",
         "Raw and curated data lake buckets for an analytics team.", _S),
    Leaf("archive-cold-storage", "Cold archive storage",
         "A long-term archive service with archive-class buckets.", _S),
    Leaf("static-website-hosting-buckets", "Static website hosting",
         "Buckets serving static websites behind a CDN.", _S),
    Leaf("research-data-repository-storage", "Research data storage",
         "A university's storage for research datasets.", _S),
    Leaf("healthcare-imaging-storage", "Medical imaging storage",
         "A hospital's storage of imaging archives with legal holds.", _S),
    Leaf("log-archive-storage", "Log archive storage",
         "Security and app log archives with read-only retention.", _S),
    Leaf("minio-like-onprem-storage", "On-premises object storage",
         "An on-prem S3-compatible store run by an IT department.", _S),
    Leaf("ml-dataset-storage", "ML dataset storage",
         "Buckets holding training datasets and model checkpoints.", _S),
    Leaf("photo-sharing-app-storage", "Photo app storage backend",
         "A photo app's per-customer buckets and upload keys.", _S),
    Leaf("document-archive-storage", "Document archive storage",
         "A law firm's document archive buckets under retention.", _S),
    Leaf("iot-telemetry-storage", "IoT telemetry storage",
         "Buckets receiving IoT device telemetry batches.", _S),
    Leaf("game-asset-cdn-storage", "Game asset storage",
         "Game patch and asset buckets feeding a CDN.", _S),
    Leaf("sovereign-object-storage", "Sovereign object storage",
         "An in-country object store for regulated data.", _S),
    Leaf("podcast-hosting-storage", "Podcast audio storage",
         "Storage accounts for podcast networks' audio files.", _S),
    Leaf("ecommerce-product-images", "Product image storage",
         "An e-commerce platform's product image buckets.", _S),
    Leaf("genomics-data-storage", "Genomics data storage",
         "A sequencing lab's buckets of raw reads and results.", _S),
    Leaf("compliance-worm-storage", "Compliance WORM storage",
         "Write-once storage for financial records.", _S),
)
