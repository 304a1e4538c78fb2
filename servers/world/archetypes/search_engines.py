"""Search & Information Retrieval > Web & Enterprise Search: indexes, crawls and search consoles."""

from ..spec import (
    Archetype,
    DateOrder,
    Entity,
    Field,
    Leaf,
    Lifecycle,
    MaxPerParent,
    RefInState,
    Transition,
)

_DOMAINS = tuple(f"{sub}.{brand}.{tld}" for brand in (
    "northwind", "harborbakery", "acme-cloud", "cityherald", "greenleaf-clinic", "contoso",
    "fjordtravel", "vinylvault", "atelier-lumiere", "packetbox", "museo-arte", "tailspin",
    "bluefin-outdoor", "oakridge-school") for sub in ("www", "shop", "blog", "docs")
    for tld in ("com", "org", "io"))

ENTERPRISE_SEARCH = Archetype(
    id="enterprise_search_index", l2="Web & Enterprise Search",
    title="Enterprise search administration",
    description="Content sources are crawled into search indexes; admins schedule crawl jobs "
                "and publish relevance rules (pinned results, synonyms, boosts).",
    primary="crawl_job", people="",
    features=("comments", "tags", "notifications", "audit_log", "search", "scheduling",
              "sharing", "attachments"),
    entities=(
        Entity("search_index", "search_indexes", label="name", count=12, fields=(
            Field("name", "text", unique=True, vocab=(
                "intranet-main", "hr-policies", "engineering-wiki", "support-kb",
                "product-catalog", "legal-contracts", "sales-collateral", "it-runbooks",
                "research-papers", "customer-tickets", "finance-reports", "marketing-assets")),
            Field("language", "enum", values=("en", "de", "fr", "es", "nl", "ja", "multi"),
                  filterable=True),
            Field("shard_count", "int", min=1, max=12),
            Field("replica_count", "int", min=0, max=3),
            Field("analyzer", "enum", values=("standard", "english_stemmed", "icu", "keyword",
                                              "ngram"), filterable=True),
        ), lifecycle=Lifecycle(
            states=("ready", "rebuilding", "read_only", "decommissioned"), initial="ready",
            frozen=("decommissioned",), seed_weights=(8, 2, 1, 1),
            transitions=(
                Transition("start_rebuild", ("ready", "read_only"), "rebuilding",
                           "Start a full reindex of the index."),
                Transition("finish_rebuild", ("rebuilding",), "ready",
                           "Mark a rebuild complete and serve queries from it."),
                Transition("set_read_only", ("ready",), "read_only",
                           "Freeze writes to the index (queries still served)."),
                Transition("decommission", ("ready", "read_only"), "decommissioned",
                           "Take the index out of service for good."),
            ))),
        Entity("content_source", "content_sources", label="name", count=14, fields=(
            Field("name", "text", unique=True, vocab=(
                "SharePoint Online - Intranet", "Confluence Cloud", "Google Drive - Shared",
                "Jira Service Desk", "Zendesk Help Center", "Salesforce Knowledge",
                "ServiceNow KB", "Public Website", "Box - Legal", "Slack Archive",
                "Network File Share", "GitHub Enterprise", "Workday Policies",
                "Amazon S3 - Reports")),
            Field("connector", "enum", values=(
                "sharepoint", "confluence", "google_drive", "jira", "zendesk", "salesforce",
                "servicenow", "web_crawler", "box", "slack", "smb_share", "github", "s3"),
                  filterable=True),
            Field("search_index_id", "ref", ref="search_index", mutable=False),
            Field("crawl_frequency", "enum", values=("hourly", "daily", "weekly", "manual")),
            Field("max_depth", "int", min=1, max=10),
            Field("respect_acls", "bool"),
        ), lifecycle=Lifecycle(
            states=("active", "paused", "auth_error", "disconnected"), initial="active",
            frozen=("disconnected",), seed_weights=(7, 2, 1, 1),
            transitions=(
                Transition("pause", ("active", "auth_error"), "paused",
                           "Pause scheduled crawling of the source."),
                Transition("resume", ("paused",), "active", "Resume crawling the source."),
                Transition("flag_auth_error", ("active",), "auth_error",
                           "Record that the connector's credentials were rejected."),
                Transition("disconnect", ("active", "paused", "auth_error"), "disconnected",
                           "Remove the connector; its documents age out of the index."),
            )),
            constraints=(RefInState("search_index_id", ("ready", "rebuilding", "read_only")),)),
        Entity("crawl_job", "crawl_jobs", label="job_code", count=200, fields=(
            Field("job_code", "code", vocab=("CRW",)),
            Field("content_source_id", "ref", ref="content_source", mutable=False),
            Field("crawl_type", "enum", values=("full", "incremental", "acl_only", "recrawl"),
                  filterable=True),
            Field("documents_seen", "int", min=0, max=250_000),
            Field("documents_failed", "int", min=0, max=900),
            Field("triggered_by", "text", vocab=(
                "scheduler", "admin console", "api: reindex hook", "content owner request",
                "connector upgrade", "schema change", "incident follow-up",
                "nightly maintenance", "permission sync", "manual retry")),
            Field("finished_on", "date", required=False, mutable=False),
        ), lifecycle=Lifecycle(
            states=("queued", "running", "succeeded", "failed", "cancelled"), initial="queued",
            frozen=("succeeded", "failed", "cancelled"), seed_weights=(2, 1, 8, 2, 1),
            transitions=(
                Transition("start", ("queued",), "running", "Start a queued crawl."),
                Transition("complete", ("running",), "succeeded", "Mark a crawl finished.",
                           stamp="finished_on"),
                Transition("fail", ("running",), "failed", "Mark a crawl as failed.",
                           stamp="finished_on"),
                Transition("cancel", ("queued", "running"), "cancelled",
                           "Cancel a crawl before it finishes."),
            )),
            constraints=(RefInState("content_source_id", ("active",)),
                         MaxPerParent("content_source_id", 2, ("queued", "running")))),
        Entity("relevance_rule", "relevance_rules", label="trigger_phrase", count=90, fields=(
            Field("search_index_id", "ref", ref="search_index", mutable=False),
            Field("trigger_phrase", "text", vocab=(
                "expense policy", "vpn setup", "holiday calendar", "password reset",
                "parental leave", "org chart", "travel booking", "benefits enrollment",
                "laptop refresh", "security training", "quarterly results", "brand guidelines",
                "onboarding checklist", "incident report")),
            Field("rule_type", "enum", values=("pin_result", "synonym", "boost", "bury",
                                               "redirect"), filterable=True),
            Field("target", "text", vocab=(
                "/policies/expenses", "/it/vpn", "/hr/holidays", "/it/password-reset",
                "/hr/leave", "/people/org-chart", "/travel", "/hr/benefits", "/it/hardware",
                "/security/training", "/finance/results", "/brand")),
            Field("weight", "float", min=0.1, max=5.0),
            Field("starts_on", "date", min=-90, max=30, mutable=False),
            Field("ends_on", "date", mutable=False),
        ), lifecycle=Lifecycle(
            states=("draft", "published", "expired", "retired"), initial="draft",
            frozen=("expired", "retired"), seed_weights=(2, 6, 2, 1),
            transitions=(
                Transition("publish", ("draft",), "published",
                           "Publish the rule to live query traffic."),
                Transition("unpublish", ("published",), "draft",
                           "Take the rule back to draft."),
                Transition("expire", ("published",), "expired",
                           "End the rule at the close of its window."),
                Transition("retire", ("draft", "published"), "retired",
                           "Retire the rule without publishing it again."),
            )),
            constraints=(DateOrder("starts_on", "ends_on"),
                         RefInState("search_index_id", ("ready", "rebuilding")))),
    ),
)

SEARCH_CONSOLE = Archetype(
    id="webmaster_search_console", l2="Web & Enterprise Search",
    title="Web search console for site owners",
    description="Site owners verify properties, submit sitemaps, request re-indexing and ask "
                "for outdated URLs to be removed from web search results.",
    primary="removal_request", people="site_owner",
    features=("notifications", "audit_log", "tags", "comments", "sharing", "search",
              "attachments"),
    entities=(
        Entity("site_owner", "site_owners", label="full_name", count=60, fields=(
            Field("full_name", "name"),
            Field("email", "email", unique=True),
            Field("role", "enum", values=("owner", "full_user", "restricted_user"),
                  filterable=True),
            Field("company", "pool", source="company"),
        )),
        Entity("property", "properties", label="domain", count=50, fields=(
            Field("domain", "text", unique=True, vocab=_DOMAINS),
            Field("site_owner_id", "ref", ref="site_owner", mutable=False),
            Field("property_type", "enum", values=("domain", "url_prefix"), filterable=True),
            Field("verification_method", "enum", values=(
                "dns_txt", "html_file", "meta_tag", "analytics_tag", "tag_manager")),
            Field("country", "pool", source="country"),
            Field("verified_on", "date", required=False, mutable=False),
        ), lifecycle=Lifecycle(
            states=("verified", "unverified", "verification_lost"), initial="unverified",
            seed_weights=(8, 2, 1),
            transitions=(
                Transition("verify", ("unverified", "verification_lost"), "verified",
                           "Verify ownership of the property.", stamp="verified_on"),
                Transition("lose_verification", ("verified",), "verification_lost",
                           "Record that the verification token disappeared."),
            ))),
        Entity("sitemap", "sitemaps", label="path", count=120, fields=(
            Field("property_id", "ref", ref="property", mutable=False),
            Field("path", "text", vocab=(
                "/sitemap.xml", "/sitemap_index.xml", "/sitemaps/products.xml",
                "/sitemaps/blog.xml", "/news-sitemap.xml", "/sitemaps/images.xml",
                "/sitemaps/video.xml", "/sitemaps/categories.xml", "/sitemap-pages.xml",
                "/sitemaps/locations.xml")),
            Field("urls_discovered", "int", min=0, max=50_000),
            Field("urls_indexed", "int", min=0, max=45_000),
            Field("last_read_on", "date", min=-60, max=0, required=False),
        ), lifecycle=Lifecycle(
            states=("pending", "success", "has_errors", "could_not_fetch", "deleted"),
            initial="pending", frozen=("deleted",), seed_weights=(1, 8, 2, 1, 1),
            transitions=(
                Transition("mark_processed", ("pending", "has_errors", "could_not_fetch"),
                           "success", "Record that the sitemap was read successfully."),
                Transition("report_errors", ("pending", "success"), "has_errors",
                           "Record parse errors found in the sitemap."),
                Transition("report_fetch_failure", ("pending", "success"), "could_not_fetch",
                           "Record that the sitemap could not be fetched."),
                Transition("delete", ("pending", "success", "has_errors", "could_not_fetch"),
                           "deleted", "Remove the sitemap from the property."),
            )),
            constraints=(RefInState("property_id", ("verified",)),)),
        Entity("removal_request", "removal_requests", label="url", count=150, fields=(
            Field("request_code", "code", vocab=("RMV",)),
            Field("property_id", "ref", ref="property", mutable=False),
            Field("url", "text", vocab=(
                "/old-pricing", "/staff/jane-doe", "/promo/summer-2024", "/tmp/test-page",
                "/customers/export.csv", "/beta/signup", "/careers/closed-role-1182",
                "/press/draft-release", "/private/invoice-2291", "/legacy/catalog.pdf",
                "/events/cancelled-meetup", "/products/discontinued-kettle")),
            Field("removal_type", "enum", values=(
                "temporary_removal", "clear_cached_url", "outdated_content",
                "safesearch_filtering"), filterable=True),
            Field("scope", "enum", values=("url_only", "prefix")),
            Field("reason", "text", vocab=(
                "page deleted", "personal data exposed", "content changed",
                "staging page leaked", "legal request", "duplicate of canonical page",
                "expired promotion", "security incident clean-up", "product withdrawn",
                "wrongly indexed PDF")),
            Field("expires_on", "date", min=0, max=180, required=False),
        ), lifecycle=Lifecycle(
            states=("pending", "approved", "denied", "expired", "cancelled"), initial="pending",
            frozen=("denied", "expired", "cancelled"), seed_weights=(3, 6, 2, 2, 1),
            transitions=(
                Transition("approve", ("pending",), "approved",
                           "Approve the removal; the URL is hidden from results."),
                Transition("deny", ("pending",), "denied", "Deny the removal request."),
                Transition("expire", ("approved",), "expired",
                           "End a temporary removal after its period."),
                Transition("cancel", ("pending", "approved"), "cancelled",
                           "Cancel the request; the URL may show again."),
            )),
            constraints=(RefInState("property_id", ("verified",)),
                         MaxPerParent("property_id", 4, ("pending", "approved")))),
    ),
)

ARCHETYPES = (ENTERPRISE_SEARCH, SEARCH_CONSOLE)

_E, _W = "enterprise_search_index", "webmaster_search_console"

LEAVES = (
    Leaf("corporate-intranet-search-admin", "Corporate intranet search admin",
         "The admin console of a large company's intranet search: connectors to SharePoint, "
         "Confluence and file shares, crawl schedules and pinned results.", _E),
    Leaf("law-firm-document-search", "Law firm document search",
         "Search over a law firm's matter files, contracts and precedents, with "
         "permission-aware crawling of the document management system.", _E),
    Leaf("ecommerce-site-search-tuning", "E-commerce site search tuning",
         "Product search for an online retailer: catalog indexes, nightly feeds and "
         "merchandising rules that pin or bury products.", _E),
    Leaf("support-knowledge-base-search", "Support knowledge-base search",
         "The search behind a customer help center, indexing articles and resolved tickets.",
         _E),
    Leaf("university-website-search", "University website search",
         "Search across a university's departmental websites, course catalog and news.", _E),
    Leaf("hospital-clinical-guideline-search", "Hospital clinical guideline search",
         "Clinicians' search over protocols, formularies and guidelines, with curated "
         "synonyms for drug and condition names.", _E),
    Leaf("engineering-code-docs-search", "Engineering docs and code search",
         "Unified search over a software company's wikis, runbooks and repositories.", _E),
    Leaf("government-records-search-portal", "Government records search portal",
         "A public agency's search over published records, forms and regulations.", _E),
    Leaf("media-archive-search", "Newsroom archive search",
         "A news organisation's search over decades of articles, photos and wire copy.", _E),
    Leaf("patent-prior-art-search", "Patent prior-art search workbench",
         "An IP team's index of patents and papers used for prior-art searches.", _E),
    Leaf("pharma-research-literature-search", "Pharma research literature search",
         "Search over internal study reports and licensed literature for drug discovery "
         "teams.", _E),
    Leaf("federated-workplace-search", "Federated workplace search",
         "A workplace assistant that indexes email, chat, drives and tickets for one "
         "organisation.", _E),
    Leaf("real-estate-listing-search-engine", "Real-estate listing search engine",
         "Indexes feeds from property agencies and tunes ranking for home searches.", _E),
    Leaf("job-board-search-relevance", "Job board search relevance",
         "Relevance tuning for a job board: job feeds, synonyms for titles and boosted "
         "employers.", _E),
    Leaf("museum-collection-search", "Museum collection search",
         "Search over a museum's digitised collection records and exhibition pages.", _E),
    Leaf("manufacturing-parts-catalog-search", "Industrial parts catalog search",
         "Search for a manufacturer's part numbers, datasheets and CAD drawings.", _E),
    Leaf("bank-policy-compliance-search", "Bank policy and compliance search",
         "Permission-aware search of a bank's policies, procedures and regulatory filings.",
         _E),
    Leaf("municipal-open-data-search", "Municipal open-data search",
         "Search over a city's open data sets, council minutes and service pages.", _E),
    Leaf("recipe-site-search-index", "Recipe site search index",
         "The search index of a recipe publisher, with ingredient synonyms and seasonal "
         "boosts.", _E),
    Leaf("developer-docs-search-portal", "Developer documentation search",
         "Search across an API vendor's reference docs, guides and changelogs.", _E),
    Leaf("insurance-claims-document-search", "Insurance claims document search",
         "Adjusters' search over claim files, policies and correspondence.", _E),
    Leaf("podcast-transcript-search", "Podcast transcript search",
         "Full-text search of a podcast network's episode transcripts and show notes.", _E),
    Leaf("retail-store-ops-search", "Retail store operations search",
         "Store staff search over planograms, procedures and product recall notices.", _E),
    Leaf("academic-library-discovery-index", "Library discovery search index",
         "The central index behind a library discovery layer, crawling catalogs and "
         "licensed databases.", _E),
    Leaf("small-business-site-search-console", "Small-business search console",
         "A web search console for small-business sites: verify the domain, submit the "
         "sitemap, hide outdated pages.", _W),
    Leaf("agency-multi-client-search-console", "SEO agency multi-client console",
         "An SEO agency manages dozens of client properties, sitemaps and removal requests.",
         _W),
    Leaf("news-publisher-indexing-console", "News publisher indexing console",
         "A news site's console for news sitemaps and removing retracted stories from "
         "results.", _W),
    Leaf("ecommerce-webmaster-tools", "Online store webmaster tools",
         "Webmaster tools for a shop: product sitemaps, indexing reports and discontinued "
         "product removals.", _W),
    Leaf("privacy-takedown-request-desk", "Search privacy takedown desk",
         "Handles requests to hide pages exposing personal data from web search results.", _W),
    Leaf("university-web-office-console", "University web office search console",
         "A university web team verifies faculty subdomains and keeps their sitemaps "
         "healthy.", _W),
    Leaf("hotel-group-seo-console", "Hotel group SEO console",
         "A hotel group's web team manages per-property sites and seasonal landing pages in "
         "search.", _W),
    Leaf("saas-docs-indexing-console", "SaaS docs indexing console",
         "A software company watches how its docs site is indexed and clears stale "
         "versions.", _W),
    Leaf("government-site-search-console", "Government site search console",
         "A digital service team verifies agency domains and removes withdrawn guidance.",
         _W),
    Leaf("franchise-local-pages-console", "Franchise local pages console",
         "A franchise brand monitors hundreds of local location pages in web search.", _W),
    Leaf("bing-style-webmaster-center", "Webmaster center for a search engine",
         "The site-owner side of a regional web search engine: verification, sitemaps and "
         "URL removals.", _W),
    Leaf("nonprofit-website-search-console", "Nonprofit website search console",
         "A charity's volunteers manage campaign microsites and their search presence.", _W),
    Leaf("marketplace-seller-seo-console", "Marketplace seller SEO console",
         "Sellers on a marketplace manage storefront pages' indexing and removals.", _W),
    Leaf("legal-reputation-removal-desk", "Reputation removal request desk",
         "A reputation management firm files outdated-content removals for clients.", _W),
    Leaf("media-site-migration-console", "Site migration search console",
         "Tracks sitemaps and old URL removals while a media group migrates domains.", _W),
    Leaf("app-deep-link-indexing-console", "App deep-link indexing console",
         "Manages web properties and sitemaps that back a mobile app's deep links in "
         "search.", _W),
)
