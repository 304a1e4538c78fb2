"""Media & Entertainment > Games & Esports: esports tournaments and live-service game player
accounts."""

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

_PRO_TAGS = tuple(f"{a}{b}" for a in ("Night", "Blaze", "Vortex", "Echo", "Ghost", "Kairo",
                                        "Mirage", "Tempest", "Onyx", "Rook", "Frost", "Nova")
                  for b in ("", "X", "z", "_GG", "99", "Jr", "TV", "Prime", "One", "Ace",
                            "Zero", "Lite", "Max"))
_GAMERTAGS = tuple(f"{a}{b}" for a in ("Sniper", "QuietStorm", "PixelPaladin", "NoScopeNina",
                                        "TurboTaco", "LagLord", "CritKing", "MossyBoots",
                                        "StarDust", "GlitchWitch", "IronMango", "HexHunter")
                   for b in ("", "77", "_x", "Prime", "2004", "TTV", "_yt", "99", "HD", "Jr",
                             "OG", "Main", "Alt"))

ESPORTS_TOURNAMENTS = Archetype(
    id="esports_tournaments", l2="Games & Esports", title="Esports tournament operations",
    description="Teams with rosters register for tournaments with limited slots and play "
                "scheduled matches.",
    primary="tournament", people="player",
    features=("comments", "notifications", "scheduling", "payments", "sharing", "tags",
              "audit_log", "search", "currency"),
    entities=(
        Entity("team", "teams", label="team_name", count=20, fields=(
            Field("team_name", "text", unique=True, vocab=(
                "Nova Esports", "Iron Wolves", "Crimson Tide Gaming", "Team Eclipse",
                "Polar Foxes", "Shadow Syndicate", "Rogue Comets", "Vortex Five",
                "Golden Lynx", "Apex Owls", "Storm Riders", "Pixel Pirates", "Blue Phoenix",
                "Night Harbor", "Silver Serpents", "Emerald Ravens", "Team Solstice",
                "Red Kestrels", "Quantum Drift", "Obsidian Bears")),
            Field("region", "enum", filterable=True,
                  values=("NA", "EU", "KR", "CN", "BR", "SEA", "OCE", "LATAM")),
            Field("home_city", "pool", source="city"),
            Field("roster_limit", "int", min=5, max=8,
                  description="Active players the team may field"),
            Field("coach_name", "name"),
        ), lifecycle=Lifecycle(
            states=("active", "inactive", "disbanded"), initial="active",
            frozen=("disbanded",), seed_weights=(8, 1, 1),
            transitions=(
                Transition("deactivate", ("active",), "inactive", "Mark the team inactive."),
                Transition("reactivate", ("inactive",), "active", "Reactivate the team."),
                Transition("disband", ("active", "inactive"), "disbanded",
                           "Disband the team."),
            ))),
        Entity("player", "players", label="gamer_tag", count=150, fields=(
            Field("team_id", "ref", ref="team", mutable=False),
            Field("gamer_tag", "text", unique=True, vocab=_PRO_TAGS),
            Field("full_name", "name"),
            Field("role", "enum", filterable=True, values=(
                "captain", "entry_fragger", "support", "sniper", "jungler", "mid_laner",
                "substitute")),
            Field("nationality", "pool", source="country"),
            Field("signed_on", "date", min=-700, max=0, mutable=False),
        ), lifecycle=Lifecycle(
            states=("active", "benched", "released"), initial="active",
            frozen=("released",), seed_weights=(6, 2, 2),
            transitions=(
                Transition("bench", ("active",), "benched", "Move the player to the bench."),
                Transition("release", ("active", "benched"), "released",
                           "Release the player from the team."),
            )),
            constraints=(Capacity("team_id", "roster_limit", ("active",)),)),
        Entity("tournament", "tournaments", label="name", count=20, fields=(
            Field("name", "text", unique=True, vocab=(
                "Spring Split Finals", "Winter Invitational", "Community Cup",
                "Collegiate Championship", "Open Qualifier #3", "Masters Bracket",
                "Charity Showdown", "Pro League Season 9", "LAN Weekend Clash",
                "Regional Majors", "Rising Stars Cup", "Summer Brawl")),
            Field("game_title", "enum", filterable=True, values=(
                "League of Legends", "Counter-Strike 2", "Valorant", "Dota 2",
                "Rocket League", "Overwatch 2", "Street Fighter 6", "Fortnite")),
            Field("format", "enum", values=(
                "single_elimination", "double_elimination", "round_robin", "swiss")),
            Field("starts_on", "date", min=-120, max=90),
            Field("ends_on", "date"),
            Field("team_slots", "int", min=4, max=12),
            Field("prize_pool", "money", min=50_000, max=50_000_000),
        ), lifecycle=Lifecycle(
            states=("registration_open", "announced", "in_progress", "completed",
                    "cancelled"),
            initial="announced", frozen=("completed", "cancelled"),
            seed_weights=(4, 2, 2, 3, 1),
            transitions=(
                Transition("open_registration", ("announced",), "registration_open",
                           "Open team registration."),
                Transition("start", ("registration_open",), "in_progress",
                           "Start the tournament."),
                Transition("complete", ("in_progress",), "completed",
                           "Record that the tournament finished."),
                Transition("cancel", ("announced", "registration_open"), "cancelled",
                           "Cancel the tournament."),
            )),
            constraints=(DateOrder("starts_on", "ends_on"),)),
        Entity("registration", "registrations", label="registration_code", count=160,
               description="A team's entry into a tournament.", fields=(
            Field("registration_code", "code", vocab=("ENT",)),
            Field("tournament_id", "ref", ref="tournament", mutable=False),
            Field("team_id", "ref", ref="team", mutable=False),
            Field("seed_number", "int", min=1, max=64, required=False),
            Field("checked_in", "bool"),
            Field("approved_on", "date", required=False, mutable=False),
        ), lifecycle=Lifecycle(
            states=("pending", "approved", "waitlisted", "withdrawn", "disqualified"),
            initial="pending", frozen=("withdrawn", "disqualified"),
            seed_weights=(2, 6, 1, 1, 1),
            transitions=(
                Transition("approve", ("pending", "waitlisted"), "approved",
                           "Approve the team's entry.", stamp="approved_on"),
                Transition("waitlist", ("pending",), "waitlisted", "Put the team on the "
                           "waitlist."),
                Transition("withdraw", ("pending", "approved", "waitlisted"), "withdrawn",
                           "Withdraw the team."),
                Transition("disqualify", ("approved",), "disqualified",
                           "Disqualify the team for a rules breach."),
            )),
            constraints=(
                RefInState("tournament_id", ("registration_open",)),
                Capacity("tournament_id", "team_slots", ("pending", "approved")),
            )),
    ),
)

PLAYER_ACCOUNTS = Archetype(
    id="game_player_accounts", l2="Games & Esports", title="Live-service game player accounts",
    description="A live-service game's player accounts, in-game store purchases and "
                "moderation reports against players.",
    primary="player_account", people="player_account",
    features=("payments", "notifications", "audit_log", "tags", "comments", "search",
              "currency", "inventory"),
    entities=(
        Entity("store_item", "store_items", label="item_name", count=20,
               description="An item sold in the in-game store.", fields=(
            Field("sku", "code", vocab=("SKU",)),
            Field("item_name", "text", unique=True, vocab=(
                "Season Battle Pass", "1000 Gems", "Dragon Knight Skin", "XP Booster (24h)",
                "Legendary Loot Crate", "Neon Emote Pack", "Starter Bundle",
                "Golden Weapon Wrap", "Extra Inventory Slots", "Name Change Token",
                "Pet Companion: Fox", "5000 Coins", "Founder's Pack", "Victory Dance",
                "Winter Wonderland Bundle", "Neon Rider Glider", "Crystal Pickaxe",
                "Double XP Weekend Pass", "Mythic Banner", "Arcade Loading Screen")),
            Field("item_type", "enum", filterable=True, values=(
                "currency", "cosmetic", "battle_pass", "booster", "bundle", "loot_box")),
            Field("price", "money", min=99, max=9_999),
            Field("rarity", "enum", values=("common", "rare", "epic", "legendary")),
        ), lifecycle=Lifecycle(
            states=("listed", "unlisted", "retired"), initial="unlisted",
            frozen=("retired",), seed_weights=(6, 2, 1),
            transitions=(
                Transition("list", ("unlisted",), "listed", "Put the item in the store."),
                Transition("unlist", ("listed",), "unlisted", "Remove the item from sale."),
                Transition("retire", ("listed", "unlisted"), "retired",
                           "Retire the item permanently."),
            ))),
        Entity("player_account", "player_accounts", label="gamertag", count=150, fields=(
            Field("gamertag", "text", unique=True, vocab=_GAMERTAGS),
            Field("email", "email", unique=True),
            Field("platform", "enum", filterable=True,
                  values=("pc", "playstation", "xbox", "switch", "mobile")),
            Field("level", "int", min=1, max=200),
            Field("country", "pool", source="country"),
        ), lifecycle=Lifecycle(
            states=("active", "suspended", "banned", "deleted"), initial="active",
            frozen=("banned", "deleted"), seed_weights=(12, 1, 1, 1),
            transitions=(
                Transition("suspend", ("active",), "suspended",
                           "Temporarily suspend the account."),
                Transition("reinstate", ("suspended",), "active", "Lift a suspension."),
                Transition("ban", ("active", "suspended"), "banned",
                           "Permanently ban the account."),
                Transition("delete", ("active", "suspended"), "deleted",
                           "Delete the account at the player's request."),
            ))),
        Entity("purchase", "purchases", label="receipt_number", count=220,
               description="A store purchase made by a player.", fields=(
            Field("receipt_number", "code", vocab=("RCP",)),
            Field("player_account_id", "ref", ref="player_account", mutable=False),
            Field("store_item_id", "ref", ref="store_item", mutable=False),
            Field("amount_paid", "money", min=99, max=9_999, mutable=False),
            Field("payment_channel", "enum", values=(
                "credit_card", "paypal", "console_wallet", "gift_card", "carrier_billing")),
            Field("refunded_on", "date", required=False, mutable=False),
        ), lifecycle=Lifecycle(
            states=("pending", "completed", "refunded", "charged_back"), initial="pending",
            frozen=("refunded", "charged_back"), seed_weights=(1, 10, 2, 1),
            transitions=(
                Transition("complete", ("pending",), "completed",
                           "Confirm payment and grant the item."),
                Transition("refund", ("completed",), "refunded",
                           "Refund the purchase and revoke the item.", stamp="refunded_on"),
                Transition("record_chargeback", ("completed",), "charged_back",
                           "Record a bank chargeback."),
            )),
            constraints=(
                RefInState("player_account_id", ("active",)),
                RefInState("store_item_id", ("listed",)),
            )),
        Entity("moderation_report", "moderation_reports", label="case_number", count=140,
               description="A report filed against a player for misconduct.", fields=(
            Field("case_number", "code", vocab=("MOD",)),
            Field("player_account_id", "ref", ref="player_account", mutable=False),
            Field("reason", "enum", filterable=True, values=(
                "cheating", "harassment", "offensive_name", "griefing", "account_sharing",
                "real_money_trading", "spam")),
            Field("evidence_note", "text", vocab=(
                "Aimbot suspected from replay", "Abusive voice chat in ranked",
                "Slurs in team chat", "Intentional feeding", "Selling accounts on forum",
                "Wall-hack flagged by anti-cheat", "Spamming trade channel",
                "Offensive clan tag", "Repeated AFK in ranked", "Boosting service ad")),
            Field("resolved_on", "date", required=False, mutable=False),
        ), lifecycle=Lifecycle(
            states=("open", "under_review", "actioned", "dismissed"), initial="open",
            frozen=("actioned", "dismissed"), seed_weights=(3, 2, 3, 3),
            transitions=(
                Transition("start_review", ("open",), "under_review",
                           "Assign the report to a moderator."),
                Transition("take_action", ("under_review",), "actioned",
                           "Uphold the report and sanction the player.", stamp="resolved_on"),
                Transition("dismiss", ("open", "under_review"), "dismissed",
                           "Dismiss the report."),
            )),
            constraints=(MaxPerParent("player_account_id", 3, ("open", "under_review")),)),
    ),
)

ARCHETYPES = (ESPORTS_TOURNAMENTS, PLAYER_ACCOUNTS)

_T, _P = "esports_tournaments", "game_player_accounts"

LEAVES = (
    Leaf("esports-league-operations", "Esports league operations",
         "A professional esports league's teams, rosters, seasonal tournaments and "
         "registrations.", _T),
    Leaf("collegiate-esports-conference", "Collegiate esports conference",
         "A college esports conference with varsity teams and conference tournaments.", _T),
    Leaf("community-gaming-cups", "Community gaming cup organiser",
         "A Battlefy-like organiser for weekend community cups with team check-in.", _T),
    Leaf("fighting-game-bracket-manager", "Fighting game bracket manager",
         "A start.gg-like bracket manager for fighting-game locals and majors.", _T),
    Leaf("high-school-esports-league", "High school esports league",
         "A scholastic esports league with school teams and coach-run rosters.", _T),
    Leaf("lan-party-tournaments", "LAN party tournament desk",
         "A LAN event's tournaments with limited team slots and on-site check-in.", _T),
    Leaf("mobile-esports-circuit", "Mobile esports circuit",
         "A mobile-game esports circuit with regional qualifiers.", _T),
    Leaf("rocket-league-amateur-series", "Amateur car-soccer series",
         "An amateur car-soccer league with 3v3 teams and seasonal brackets.", _T),
    Leaf("corporate-esports-cup", "Corporate esports cup",
         "A company-vs-company charity esports cup.", _T),
    Leaf("esports-team-management", "Esports team management",
         "An esports organisation managing rosters across titles and tournament entries.",
         _T),
    Leaf("chess-club-team-tournaments", "Online chess team tournaments",
         "Team-based online chess events with rosters and registrations.", _T),
    Leaf("fps-pro-qualifiers", "FPS pro qualifiers",
         "Open qualifiers feeding a tactical-shooter pro league.", _T),
    Leaf("battle-royale-scrims", "Battle royale scrim organiser",
         "Scrim lobbies and cups for battle-royale squads.", _T),
    Leaf("moba-academy-league", "MOBA academy league",
         "A development league for academy rosters of professional MOBA teams.", _T),
    Leaf("retro-gaming-championships", "Retro gaming championships",
         "Championships for classic-console games with team events.", _T),
    Leaf("university-intramural-gaming", "University intramural gaming",
         "Intramural gaming tournaments run by a campus recreation office.", _T),
    Leaf("charity-speedrun-marathon", "Charity gaming marathon teams",
         "Team relay events for a charity gaming marathon.", _T),
    Leaf("sim-racing-league", "Sim racing league",
         "A sim-racing league with teams, driver rosters and race-weekend events.", _T),
    Leaf("card-game-team-events", "Digital card game team events",
         "Team events for a digital collectible card game.", _T),
    Leaf("esports-bar-tournaments", "Esports bar tournament nights",
         "A gaming bar's weekly tournaments and team sign-ups.", _T),
    Leaf("mmo-player-support", "MMO player account support",
         "An MMO's player accounts, store purchases and misconduct reports.", _P),
    Leaf("mobile-game-live-ops", "Mobile game live-ops console",
         "A free-to-play mobile game's store catalogue, purchases and player moderation.",
         _P),
    Leaf("battle-royale-store-ops", "Battle royale item shop",
         "The rotating item shop of a battle-royale game and its player purchases.", _P),
    Leaf("console-game-player-safety", "Console game trust & safety",
         "Trust & safety tooling for a console shooter's reports and bans.", _P),
    Leaf("kids-sandbox-game-moderation", "Kids sandbox game moderation",
         "A children's sandbox game's accounts with strict chat moderation.", _P),
    Leaf("indie-game-storefront", "Indie game in-game store",
         "An indie studio's in-game cosmetic store and refunds.", _P),
    Leaf("racing-game-accounts", "Racing game player accounts",
         "A racing game's player accounts, car pack purchases and cheating reports.", _P),
    Leaf("card-battler-economy", "Card battler economy console",
         "A digital card game's pack sales, player accounts and account-sharing cases.", _P),
    Leaf("vr-game-community-ops", "VR game community operations",
         "A social VR game's accounts, avatar purchases and harassment reports.", _P),
    Leaf("sports-game-ultimate-team", "Sports game team-mode store",
         "A sports game's team-building mode with pack purchases and trading reports.", _P),
    Leaf("rpg-gacha-operations", "Gacha RPG operations",
         "A gacha RPG's banners, currency purchases, chargebacks and moderation.", _P),
    Leaf("puzzle-game-subscriptions", "Casual puzzle game accounts",
         "A casual puzzle game's player accounts, coin purchases and refunds.", _P),
    Leaf("fighting-game-online-ops", "Fighting game online operations",
         "Ranked-mode accounts, DLC character purchases and rage-quit reports.", _P),
    Leaf("survival-game-servers", "Survival game account admin",
         "A survival game's accounts, supporter packs and griefing reports.", _P),
    Leaf("game-publisher-support-desk", "Game publisher support desk",
         "A publisher's support desk handling accounts, refunds and suspensions.", _P),
    Leaf("esports-fantasy-accounts", "Esports fantasy game accounts",
         "A fantasy esports game's player accounts and premium purchases.", _P),
    Leaf("educational-game-accounts", "Educational game accounts",
         "A learning game's student accounts, premium unlocks and chat reports.", _P),
    Leaf("mmo-gold-seller-enforcement", "MMO real-money-trading enforcement",
         "An MMO's enforcement desk tracking real-money trading reports and bans.", _P),
    Leaf("cloud-gaming-library-store", "Cloud gaming add-on store",
         "A cloud-gaming service's add-on store, accounts and disputes.", _P),
)
