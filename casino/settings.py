"""Settings, all from the environment, with safe defaults.

Two profiles, chosen by DJANGO_ENV:
- ``development`` (the default): an SQLite file and kombu's filesystem broker under
  CASINO_DATA_DIR (default ./var), so a fresh clone runs a real worker with no server.
- ``production``: refuses to start without DJANGO_SECRET_KEY, DJANGO_ALLOWED_HOSTS,
  DATABASE_URL, CELERY_BROKER_URL and CASINO_DEVICE_KEY, or with an unsafe one (a short
  or committed key, DEBUG on, a wildcard host), and passes ``manage.py check --deploy``.

DATABASE_URL (postgres://...) and CELERY_BROKER_URL (redis://..., or sentinel://... through
Redis Sentinel) switch either profile to PostgreSQL and Redis. docs/architecture.md lists
every variable.
"""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from kombu import Exchange, Queue

from casino.env import (
    DEVELOPMENT_SECRET_KEY,
    env_bool,
    env_float,
    env_int,
    env_json,
    env_list,
    env_rate,
    env_site_url,
    env_str,
    env_time,
    networks_setting,
    production_refusals,
    site_url_default,
)
from casino.logs import sentry_init
from casino.redis_connect import SentinelUrl, is_redis, is_sentinel, sentinel_options

BASE_DIR = Path(__file__).resolve().parent.parent

DJANGO_ENV = env_str("DJANGO_ENV", "development")
if DJANGO_ENV not in ("development", "production"):
    raise ImproperlyConfigured(f"DJANGO_ENV={DJANGO_ENV!r}: expected development or production")
PRODUCTION = DJANGO_ENV == "production"

# Refused at start, all problems in one message (casino/env.py, docs/deploy.md).
if PRODUCTION and (_refusals := production_refusals(os.environ)):
    raise ImproperlyConfigured(
        "DJANGO_ENV=production refuses to start:\n"
        + "\n".join(f"- {problem}" for problem in _refusals)
    )

# Where the embedded default keeps its SQLite file, broker messages and beat schedule.
DATA_DIR = Path(env_str("CASINO_DATA_DIR", str(BASE_DIR / "var"))).resolve()

# A development key is fine on a developer's machine and refused in production above.
SECRET_KEY = env_str("DJANGO_SECRET_KEY", DEVELOPMENT_SECRET_KEY)
DEBUG = env_bool("DJANGO_DEBUG", default=not PRODUCTION)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "casino",
    "games",
    "devices",
    "workers",
    "webhooks",
]

MIDDLEWARE = [
    # A request id on every log line and answer; then /metrics and each request's time
    # (casino/logs.py, casino/api/metrics.py): outermost, so they see every answer.
    "casino.logs.RequestIdMiddleware",
    "casino.api.metrics.MetricsMiddleware",
    # Then: an oversize body refused unread, an outage a 503, every API error one body.
    "casino.api.middleware.ErrorBodyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "casino.audit.AuditActorMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "casino.urls"
WSGI_APPLICATION = "casino.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{DATA_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    # The web server, the worker and beat share one file: wait for locks rather than
    # fail, take the write lock at BEGIN, and let readers run beside a writer (WAL).
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A database host that does not answer fails a request within seconds (a JSON 503,
    # casino/api/middleware.py), never holds a web worker until gunicorn kills it.
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = env_int(
        "DATABASE_CONNECT_TIMEOUT", 5
    )
    # A database host gone from the network in the middle of a query (its machine lost):
    # TCP keepalives find it within 5 + 3 x 2 s, and unacknowledged data within
    # DATABASE_TCP_USER_TIMEOUT_MS, where without them a connection waits for an answer
    # that never comes, holding its web thread or worker for good (docs/deploy.md,
    # "Several machines").
    DATABASES["default"]["OPTIONS"].update(
        keepalives=1,
        keepalives_idle=5,
        keepalives_interval=2,
        keepalives_count=3,
        tcp_user_timeout=env_int("DATABASE_TCP_USER_TIMEOUT_MS", 10000),
    )
    # Parameters bound by the server, and a statement a connection has run 5 times
    # prepared: PostgreSQL then parses and plans it once, not on every run (issue 21: a
    # wager's statements took it 3.0 ms, 1.3 prepared). Off behind a pooler in transaction
    # mode (docs/deploy.md), where a connection's prepared statements are not its own.
    if env_bool("DATABASE_PREPARED_STATEMENTS", True):
        DATABASES["default"]["OPTIONS"].update(server_side_binding=True, prepare_threshold=5)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Errors (casino/api/middleware.py) --------------------------------------------------
# A body over this many bytes is refused with a JSON 413 before anything reads it: under
# /api/ and under /devices/ (whose bodies are a few hundred bytes).
CASINO_API_MAX_BODY_BYTES = env_int("CASINO_API_MAX_BODY_BYTES", 1024 * 1024)
CASINO_DEVICE_MAX_BODY_BYTES = env_int("CASINO_DEVICE_MAX_BODY_BYTES", 4096)
for _name in ("CASINO_API_MAX_BODY_BYTES", "CASINO_DEVICE_MAX_BODY_BYTES"):
    if globals()[_name] < 1024:
        raise ImproperlyConfigured(f"{_name}={globals()[_name]}: expected 1024 bytes or more")
# A request line (method, path with its query, protocol) over this many bytes is refused
# with a 414 (the one JSON body under /api/ and /devices/) before anything reads it. gunicorn
# reads lines up to 8190 bytes, its largest bounded limit (deploy/gunicorn.conf.py), so this
# one must stay under it: a longer line is gunicorn's own 414, an HTML page.
CASINO_API_MAX_REQUEST_LINE = env_int("CASINO_API_MAX_REQUEST_LINE", 4094)
if not 1024 <= CASINO_API_MAX_REQUEST_LINE < 8190:
    raise ImproperlyConfigured(
        f"CASINO_API_MAX_REQUEST_LINE={CASINO_API_MAX_REQUEST_LINE}: expected 1024 to 8189 "
        "bytes (gunicorn answers a line over 8190 bytes itself)"
    )
# Django's own limit on a body read whole (forms, the admin): never below the API's.
DATA_UPLOAD_MAX_MEMORY_SIZE = max(
    env_int("DJANGO_DATA_UPLOAD_MAX_MEMORY_SIZE", 2_621_440), CASINO_API_MAX_BODY_BYTES
)
# The most wagers one request places, and one round holds in all: those placed in it and
# those working on its layout from earlier throws (gaming/rounds.py). Past the first a
# request is refused before anything is read or locked. Far above any real table:
# docs/api.md, "How many wagers".
CASINO_MAX_WAGERS_PER_REQUEST = env_int("CASINO_MAX_WAGERS_PER_REQUEST", 2000)
CASINO_MAX_WAGERS_PER_ROUND = env_int("CASINO_MAX_WAGERS_PER_ROUND", 5000)
if not 1 <= CASINO_MAX_WAGERS_PER_REQUEST <= CASINO_MAX_WAGERS_PER_ROUND:
    raise ImproperlyConfigured(
        f"CASINO_MAX_WAGERS_PER_REQUEST={CASINO_MAX_WAGERS_PER_REQUEST}: expected 1 or more, "
        f"and no more than CASINO_MAX_WAGERS_PER_ROUND={CASINO_MAX_WAGERS_PER_ROUND}"
    )
# A database or broker outage answers 503 with this Retry-After (seconds).
CASINO_RETRY_AFTER_SECONDS = env_int("CASINO_RETRY_AFTER_SECONDS", 5)

# Failed sign-ins are throttled on every path (casino/api/sign_in.py).
AUTHENTICATION_BACKENDS = ["casino.api.sign_in.ThrottledBackend"]
LOGIN_URL = "/admin/login/"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = env_str("CASINO_TIME_ZONE", "America/New_York")  # Pennsylvania
# The gaming day's start in TIME_ZONE (HH:MM): a day's hold runs from it to the next day's,
# in three shifts of 8 hours (docs/statistics.md).
CASINO_GAMING_DAY_START = env_time("CASINO_GAMING_DAY_START", "06:00")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("DJANGO_STATIC_ROOT", str(DATA_DIR / "static")))
if not PRODUCTION:
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # collectstatic fills it in production
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

# --- REST API (casino/api/) -------------------------------------------------------------
REST_FRAMEWORK = {
    # Staff sign in through the admin (a session, with CSRF); integrators send an API token.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "casino.api.auth.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["casino.api.permissions.RolePermission"],
    # JSON only: a form or multipart body is a 415 in the one error body. The schema then
    # declares every request body once, as JSON, which client generators take whole.
    "DEFAULT_PARSER_CLASSES": ["casino.api.parsers.StrictJSONParser"],
    # django-filter's, refusing a value its schema does not take (casino/api/filtering.py).
    "DEFAULT_FILTER_BACKENDS": [
        "casino.api.filtering.FilterBackend",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_PAGINATION_CLASS": "casino.api.pagination.Pages",
    # OPTIONS always JSON, an empty ?format= a 404 (casino/api/negotiation.py).
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "casino.api.negotiation.Negotiation",
    "DEFAULT_SCHEMA_CLASS": "casino.api.schema.ApiSchema",
    "EXCEPTION_HANDLER": "casino.api.errors.exception_handler",
    "COERCE_DECIMAL_TO_STRING": True,
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # Every caller's budget, one atomic count in the shared cache (casino/api/throttles.py).
    "DEFAULT_THROTTLE_CLASSES": ["casino.api.throttles.Budget"],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Casino floor API",
    "DESCRIPTION": (
        "Tables, Rules Submissions, layouts, equipment, rounds, the ledger and devices of a "
        "Pennsylvania casino floor. Bodies are JSON only (anything else is a 415). "
        "Amounts are decimal strings. Errors share one body, "
        "{status, code, detail, reasons, fields}, whatever answers them: a body over the "
        "limit is a 413, an outage of the database or broker a 503 with Retry-After (send "
        "the request again after that many seconds, with the same Idempotency-Key)."
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",  # served from the app itself: no CDN
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "casino.api.schema.database_bounds_drop",
    ],
    "ENUM_NAME_OVERRIDES": {
        "TableStatusEnum": "casino.models.tables.Table.Status",
        "LifecycleStatusEnum": "casino.models.lifecycle.Lifecycle",
        "EquipmentSetStatusEnum": "casino.models.equipment.EquipmentSet.Status",
        "RoundStatusEnum": "games.models.rounds.Round.Status",
        "DeviceStatusEnum": "devices.models.Device.Status",
        "LedgerEntryKindEnum": "games.models.ledger.LedgerEntry.Kind",
        "LedgerLineKindEnum": "games.models.ledger.LedgerLine.Kind",
        "DeviceEventKindEnum": "devices.models.DeviceEvent.Kind",
        "DeviceWaitKindEnum": "devices.rules.WAIT_KINDS",
        "DeviceWaitReportEnum": "devices.rules.WAIT_REPORTS",
        "DeviceWaitWayEnum": "devices.rules.WAYS",
        "WebhookEventTypeEnum": "webhooks.events.CHOICES",
        "WebhookDeliveryStatusEnum": "webhooks.models.Delivery.Status",
        "WebhookEndpointStatusEnum": "webhooks.models.ENDPOINT_STATUS_CHOICES",
        "ErrorCodeEnum": "casino.api.schema.ERROR_CODE_CHOICES",
        # Named so that a field of the same name with other choices never renames them.
        "CompositionEnum": "casino.rules.equipment.COMPOSITION_CHOICES",
        "GameEnum": "games.rules.catalog.game_choices",
        "VariantEnum": "games.rules.catalog.variant_choices",
        # A round's table (games/state_schema.py): each game's shape and its wager kinds.
        "CrapsGameEnum": "games.state_schema.CRAPS_GAME",
        "SicBoGameEnum": "games.state_schema.SIC_BO_GAME",
        "HighRollDiceGameEnum": "games.state_schema.HIGH_ROLL_DICE_GAME",
        "ThreeDiceFootballGameEnum": "games.state_schema.THREE_DICE_FOOTBALL_GAME",
        "PaiGowEnum": "games.state_schema.PAI_GOW_GAME",  # the game and its one kind
        "CrapsVariantEnum": "games.state_schema.CRAPS_VARIANTS",
        "CrapsCallEnum": "games.state_schema.CRAPS_CALLS",
        "SicBoShakerEnum": "games.state_schema.SIC_BO_SHAKERS",
        "HighRollDiceDiceEnum": "games.state_schema.HIGH_ROLL_DICE_DICE",
        "ThreeDiceFootballDownEnum": "games.state_schema.THREE_DICE_FOOTBALL_DOWNS",
        "ThreeDiceFootballWagerTypeEnum": "games.state_schema.THREE_DICE_FOOTBALL_TYPES",
        "PaiGowPlaceEnum": "games.state_schema.PAI_GOW_PLACES",
        "PaiGowStyleEnum": "games.state_schema.PAI_GOW_STYLES",
        "PaiGowHandStateEnum": "games.state_schema.PAI_GOW_HAND_STATES",
        "CrapsKindEnum": "games.state_schema.CRAPS_KINDS",
        "SicBoKindEnum": "games.state_schema.SIC_BO_KINDS",
        "HighRollDiceKindEnum": "games.state_schema.HIGH_ROLL_DICE_KINDS",
        "ThreeDiceFootballKindEnum": "games.state_schema.THREE_DICE_FOOTBALL_KINDS",
        "WagerKindEnum": "games.state_schema.WAGER_KINDS",
        "NextEventEnum": "games.state_schema.NEXT_EVENTS",
        "VoidSectionEnum": "games.state_schema.VOID_SECTIONS",
    },
}
# Failed sign-ins (admin, floor page, API login) allowed per username and per address in
# CASINO_SIGN_IN_WINDOW_SECONDS before further tries are refused (casino/api/sign_in.py).
CASINO_SIGN_IN_FAILURES = env_int("CASINO_SIGN_IN_FAILURES", 5)
CASINO_SIGN_IN_WINDOW_SECONDS = env_int("CASINO_SIGN_IN_WINDOW_SECONDS", 900)

# Request budgets (casino/api/throttles.py): "<requests>/<seconds>" a fixed window, or
# "off". Each its own counters: an API flood never spends a device's or a probe's budget.
CASINO_THROTTLE_TOKEN = env_rate("CASINO_THROTTLE_TOKEN", "1200/60")  # per API token
CASINO_THROTTLE_USER = env_rate("CASINO_THROTTLE_USER", "1200/60")  # per signed-in user
CASINO_THROTTLE_ANONYMOUS = env_rate("CASINO_THROTTLE_ANONYMOUS", "600/60")  # per address
CASINO_THROTTLE_DEVICE = env_rate("CASINO_THROTTLE_DEVICE", "300/60")  # per device key
CASINO_THROTTLE_PROBE = env_rate("CASINO_THROTTLE_PROBE", "1200/60")  # per address
# The load balancer's health-check addresses: their probes are never counted, so nobody
# who reaches /health/ through the balancer (the same address) can get its probes a 429.
CASINO_PROBE_TRUSTED = env_list("CASINO_PROBE_TRUSTED", [])

# --- Redis ----------------------------------------------------------------------------
# Through Redis Sentinel (a sentinel://... URL, casino/redis_connect.py), the name the
# Sentinels know the primary by (`sentinel monitor NAME ...`, deploy/sentinel.conf).
CASINO_REDIS_MASTER_NAME = env_str("CASINO_REDIS_MASTER_NAME", "casino")

# --- Celery ---------------------------------------------------------------------------
# The embedded broker: kombu's filesystem transport (docs/adr/0001-embedded-broker.md).
BROKER_DIR = DATA_DIR / "broker"
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://localhost/")
if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_TRANSPORT = "casino.broker:Transport"  # atomic writes (casino/broker.py)
    for _folder in ("queue", "control"):
        (BROKER_DIR / _folder).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
        "polling_interval": 0.1,  # seconds between looks at the folder (kombu: 1.0)
    }
elif is_redis(CELERY_BROKER_URL):
    if CELERY_BROKER_URL.startswith("redis://"):
        # One client a pool (casino/broker.py). Not for rediss://: kombu sets up TLS only
        # for a transport named "rediss", so that URL keeps kombu's own.
        CELERY_BROKER_TRANSPORT = "casino.broker:RedisTransport"
    # An unacknowledged task comes back after this many seconds (kombu's default is an
    # hour): longer than any task's time limit, so a slow task is not run twice. Recovery
    # from a killed worker does not wait for it: the outbox sweep sends the round again.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 90),
        # A Redis whose machine is gone answers nothing, not even a refusal. A worker's
        # BRPOP (answered within 1 s by a live server) is dropped as stale once no answer
        # came within 1 s + health_check_interval (kombu's default 25 s: half a minute of
        # no settlement), and connects again, through Sentinel to the promoted one; other
        # commands wait CELERY_BROKER_SOCKET_TIMEOUT at most (docs/deploy.md, "Several
        # machines").
        "health_check_interval": 4,
        "socket_timeout": env_int("CELERY_BROKER_SOCKET_TIMEOUT", 5),
        "socket_connect_timeout": 2,
        "socket_keepalive": True,
    }
    if is_sentinel(CELERY_BROKER_URL):
        CELERY_BROKER_TRANSPORT = "casino.broker:RedisSentinelTransport"
        CELERY_BROKER_TRANSPORT_OPTIONS.update(
            master_name=CASINO_REDIS_MASTER_NAME,
            # A Sentinel that does not answer is passed over within a second.
            sentinel_kwargs=sentinel_options(),
        )
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True  # no result backend: nobody reads results
# A worker takes a few messages ahead (per pool process), so the next settlement's message
# is at hand when one ends instead of a round trip to Redis after each late ack. Late
# acknowledgement keeps it safe: a message taken ahead is unacknowledged, and one a dead
# worker held comes back (the visibility timeout; the outbox sweep sends it sooner).
CELERY_WORKER_PREFETCH_MULTIPLIER = env_int("CELERY_WORKER_PREFETCH_MULTIPLIER", 4)
# A worker that loses the broker lets its running tasks finish (their late acks then fail
# and the messages come back: a second settlement is a no-op). True, Celery 6's default,
# kills the worker when Redis comes back here (celery#7185, #9250): seen in our tests.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
# A pool process is replaced once it has run this many tasks, or once its resident memory
# passes this many KiB after a task: the task it is running always ends (and is
# acknowledged) first, and the messages taken ahead are the main process's, so a replaced
# process loses nothing (docs/deploy.md, Memory budgets). 0 turns either off.
CELERY_WORKER_MAX_TASKS_PER_CHILD = env_int("CELERY_WORKER_MAX_TASKS_PER_CHILD", 10000) or None
CELERY_WORKER_MAX_MEMORY_PER_CHILD = (
    env_int("CELERY_WORKER_MAX_MEMORY_PER_CHILD", 256 * 1024) or None
)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 120)
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 100)
CELERY_TIMEZONE = TIME_ZONE
# Celery's Django fixup closes the database connection after every task unless this is
# set; settling reuses it (CONN_MAX_AGE and the health check still apply).
CELERY_DB_REUSE_MAX = env_int("CELERY_DB_REUSE_MAX", 1000)
# A broker that is down fails a publish in about a second; the outbox sweep sends later.
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0.2, "interval_step": 0.3}
CELERY_BROKER_CONNECTION_TIMEOUT = 2
# A settlement request not settled this many seconds after it was last sent is sent again
# (safe at any time: settling is idempotent under the request's row lock). With the sweep
# every 2 s, a round whose message was lost is sent again within 12 s (issue 19).
CASINO_SETTLEMENT_STUCK_SECONDS = env_int("CASINO_SETTLEMENT_STUCK_SECONDS", 10)
# When the settlement queue is empty, a pending request last sent this long ago has lost
# its message (Redis lost its data, or a killed worker holds it): sent again at once.
CASINO_SETTLEMENT_LOST_SECONDS = env_int("CASINO_SETTLEMENT_LOST_SECONDS", 3)
# A request sent this many times without settling is an alert at its table (the floor
# page, the admin), no longer sent again by the sweep: a person looks (issue 18).
CASINO_SETTLEMENT_MAX_SENDS = env_int("CASINO_SETTLEMENT_MAX_SENDS", 10)
if CASINO_SETTLEMENT_MAX_SENDS < 1:
    raise ImproperlyConfigured(
        f"CASINO_SETTLEMENT_MAX_SENDS={CASINO_SETTLEMENT_MAX_SENDS}: expected 1 or more "
        "(the first send counts)"
    )
CELERY_BEAT_SCHEDULE_FILENAME = str(DATA_DIR / "celerybeat-schedule")
# With Redis, beat runs on every app machine and celery-redbeat's lock in Redis lets one
# of them send: the others wait for the lock, and take it within CASINO_BEAT_LOCK_SECONDS
# of the sender's loss. Each entry's last run is kept in Redis too, so the one that takes
# over sends no period again. Without Redis (one machine), Celery's own file scheduler.
if is_redis(CELERY_BROKER_URL):
    CELERY_BEAT_SCHEDULER = "casino.beat:Scheduler"  # redbeat's, riding out Redis away
    CELERY_REDBEAT_KEY_PREFIX = "casino:beat:"
    # Beat wakes at least every second, renewing the lock; a waiting beat looks as often.
    CELERY_BEAT_MAX_LOOP_INTERVAL = 1
    CELERY_REDBEAT_LOCK_TIMEOUT = env_int("CASINO_BEAT_LOCK_SECONDS", 10)
    if is_sentinel(CELERY_BROKER_URL):
        try:
            _sentinels = SentinelUrl.parse(CELERY_BROKER_URL)
        except ValueError as _error:
            raise ImproperlyConfigured(f"CELERY_BROKER_URL: {_error}") from None
        CELERY_REDBEAT_REDIS_URL = "redis-sentinel://"
        CELERY_REDBEAT_REDIS_OPTIONS = {
            "sentinels": list(_sentinels.sentinels),
            "service_name": CASINO_REDIS_MASTER_NAME,
            "db": _sentinels.db,
            "password": _sentinels.password,
            "socket_timeout": 2,
            "sentinel_kwargs": sentinel_options(),
            # Redis unreachable (a failover): retried this long before beat gives up and
            # exits, to be started again by its supervisor and wait for the lock.
            "retry_period": CELERY_REDBEAT_LOCK_TIMEOUT,
        }
    else:
        CELERY_REDBEAT_REDIS_URL = CELERY_BROKER_URL
        CELERY_REDBEAT_REDIS_OPTIONS = {
            "socket_timeout": 2,
            "retry_period": CELERY_REDBEAT_LOCK_TIMEOUT,
        }
# Queues by workload, so a flood of one cannot starve the others: a slow webhook endpoint
# holds only the webhooks queue's workers, never a settlement or the heartbeat watch.
CELERY_QUEUE_NAMES = ("settlement", "monitoring", "default", "webhooks")
# Each queue its own exchange and routing key: a message reaches exactly one queue.
CELERY_TASK_QUEUES = [Queue(name, Exchange(name), routing_key=name) for name in CELERY_QUEUE_NAMES]
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {
    "settlement.*": {"queue": "settlement"},
    "monitoring.*": {"queue": "monitoring"},
    "webhooks.*": {"queue": "webhooks"},
}
CELERY_BEAT_SCHEDULE = {
    "worker-ping-round": {
        "task": "monitoring.worker_ping_round",
        "schedule": env_int("CASINO_WORKER_PING_SECONDS", 60),
    },
    "settlement-sweep": {
        "task": "monitoring.settlement_sweep",
        "schedule": env_int("CASINO_SETTLEMENT_SWEEP_SECONDS", 2),
    },
    "equipment-schedule-check": {
        "task": "monitoring.equipment_schedule_check",
        "schedule": env_int("CASINO_EQUIPMENT_CHECK_SECONDS", 60),
    },
}

# --- Email (casino/services/notices.py; docs/deploy.md, Email) ---------------------------
# The compliance officers' notices of a set due soon or overdue. With DJANGO_EMAIL_HOST,
# Django's SMTP backend sends them; without it, the console backend writes them to the
# worker's output (development, the demo).
EMAIL_HOST = env_str("DJANGO_EMAIL_HOST", "")
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_USE_SSL = env_bool("DJANGO_EMAIL_USE_SSL", False)  # TLS from the start (port 465)
EMAIL_USE_TLS = env_bool("DJANGO_EMAIL_USE_TLS", not EMAIL_USE_SSL)  # STARTTLS (port 587)
if EMAIL_USE_SSL and EMAIL_USE_TLS:
    raise ImproperlyConfigured(
        "DJANGO_EMAIL_USE_SSL and DJANGO_EMAIL_USE_TLS are both on: choose one"
    )
EMAIL_PORT = env_int("DJANGO_EMAIL_PORT", 465 if EMAIL_USE_SSL else 587)
EMAIL_HOST_USER = env_str("DJANGO_EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("DJANGO_EMAIL_HOST_PASSWORD", "")
EMAIL_TIMEOUT = env_int("DJANGO_EMAIL_TIMEOUT", 10)  # seconds; a sweep never hangs on SMTP
DEFAULT_FROM_EMAIL = env_str("DJANGO_DEFAULT_FROM_EMAIL", "casino-floor@localhost")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# Where people reach the floor: every link sent outside a request (an email's link to a
# set's row in the admin) starts with it.
CASINO_SITE_URL = env_site_url(
    "CASINO_SITE_URL", site_url_default(ALLOWED_HOSTS, production=PRODUCTION)
)
# Beat sends the notices the schedule check wrote (each once), on the webhooks queue: its
# workers are the ones that wait on other people's servers, so a slow mail server holds
# neither the heartbeat watch nor a settlement.
CELERY_TASK_ROUTES["casino.equipment_notices_send"] = {"queue": "webhooks"}
CELERY_BEAT_SCHEDULE["equipment-notices-send"] = {
    "task": "casino.equipment_notices_send",
    "schedule": env_int("CASINO_EQUIPMENT_CHECK_SECONDS", 60),
    "options": {"expires": 60},
}

# --- Webhooks (webhooks/, docs/api.md "Webhooks") -----------------------------------------
# Endpoints may reach these networks although they are loopback or private (the demo and
# the tests post to 127.0.0.1); production refuses loopback, link-local, multicast and
# unspecified among them, and has none by default (webhooks/addresses.py).
CASINO_WEBHOOK_ALLOWED_NETWORKS = networks_setting(
    "CASINO_WEBHOOK_ALLOWED_NETWORKS", "" if PRODUCTION else "127.0.0.0/8,::1"
)
# https:// only: always in production (refused at start when false), a choice elsewhere.
CASINO_WEBHOOK_HTTPS_ONLY = env_bool("CASINO_WEBHOOK_HTTPS_ONLY", PRODUCTION)
# Each try: seconds to connect, then to answer (the task's time limits and a try's lease
# follow from them: webhooks/delivery.py).
CASINO_WEBHOOK_CONNECT_SECONDS = env_float("CASINO_WEBHOOK_CONNECT_SECONDS", 2.0)
CASINO_WEBHOOK_READ_SECONDS = env_float("CASINO_WEBHOOK_READ_SECONDS", 5.0)
# Tries of one delivery before it is a dead letter (sent again only by a person), and the
# wait after the n-th failed try: BACKOFF x 2^(n-1) seconds, BACKOFF_MAX at most
# (5, 10, 20 ... an hour: twelve tries span about two and a half hours).
CASINO_WEBHOOK_MAX_ATTEMPTS = env_int("CASINO_WEBHOOK_MAX_ATTEMPTS", 12)
CASINO_WEBHOOK_BACKOFF_SECONDS = env_float("CASINO_WEBHOOK_BACKOFF_SECONDS", 5.0)
CASINO_WEBHOOK_BACKOFF_MAX_SECONDS = env_float("CASINO_WEBHOOK_BACKOFF_MAX_SECONDS", 3600.0)
# The circuit breaker: after this many failed tries in a row an endpoint is tried once per
# backoff only (its other deliveries wait, no request made); failing for DISABLE_AFTER
# seconds (and at least that many tries) it is disabled, an alert, until enabled again.
CASINO_WEBHOOK_BREAKER_FAILURES = env_int("CASINO_WEBHOOK_BREAKER_FAILURES", 5)
CASINO_WEBHOOK_DISABLE_AFTER_SECONDS = env_int("CASINO_WEBHOOK_DISABLE_AFTER_SECONDS", 86400)
# Endpoints one certificate holder may have (paused and disabled ones counted): each event
# is POSTed to every endpoint that wants it, so this bounds the POSTs one event makes.
CASINO_WEBHOOK_MAX_ENDPOINTS = env_int("CASINO_WEBHOOK_MAX_ENDPOINTS", 10)
# Tries to one endpoint at once, across every worker: a slow endpoint holds at most this
# many of the webhooks queue's pool processes; its other deliveries wait their turn.
CASINO_WEBHOOK_ENDPOINT_IN_FLIGHT = env_int("CASINO_WEBHOOK_ENDPOINT_IN_FLIGHT", 2)
# Beat's sweep: sends each delivery whose time has come, and again any message lost (an
# event not fanned out, a delivery not taken, STUCK seconds after it was sent).
CASINO_WEBHOOK_SWEEP_SECONDS = env_int("CASINO_WEBHOOK_SWEEP_SECONDS", 2)
CASINO_WEBHOOK_STUCK_SECONDS = env_int("CASINO_WEBHOOK_STUCK_SECONDS", 10)
# The log's history: events, deliveries and their tries older than this are deleted.
CASINO_WEBHOOK_RETENTION_DAYS = env_float("CASINO_WEBHOOK_RETENTION_DAYS", 7.0)
# After a secret is rotated, messages are signed with the old one too, this long.
CASINO_WEBHOOK_ROTATION_GRACE_SECONDS = env_int("CASINO_WEBHOOK_ROTATION_GRACE_SECONDS", 86400)
for _name, _least in (
    ("CASINO_WEBHOOK_CONNECT_SECONDS", 0.1),
    ("CASINO_WEBHOOK_READ_SECONDS", 0.1),
    ("CASINO_WEBHOOK_MAX_ATTEMPTS", 1),
    ("CASINO_WEBHOOK_BACKOFF_SECONDS", 0.1),
    ("CASINO_WEBHOOK_BACKOFF_MAX_SECONDS", 0.1),
    ("CASINO_WEBHOOK_BREAKER_FAILURES", 1),
    ("CASINO_WEBHOOK_ENDPOINT_IN_FLIGHT", 1),
    ("CASINO_WEBHOOK_MAX_ENDPOINTS", 1),
    ("CASINO_WEBHOOK_SWEEP_SECONDS", 1),
    ("CASINO_WEBHOOK_STUCK_SECONDS", 1),
    ("CASINO_WEBHOOK_RETENTION_DAYS", 0.001),
):
    if globals()[_name] < _least:
        raise ImproperlyConfigured(f"{_name}={globals()[_name]}: expected {_least} or more")
CELERY_BEAT_SCHEDULE["webhooks-sweep"] = {
    "task": "monitoring.webhooks_sweep",
    "schedule": CASINO_WEBHOOK_SWEEP_SECONDS,
    "options": {"expires": 10},
}
CELERY_BEAT_SCHEDULE["webhooks-prune"] = {
    "task": "monitoring.webhooks_prune",
    "schedule": env_int("CASINO_WEBHOOK_PRUNE_SECONDS", 3600),
}

# --- Devices (devices/) ----------------------------------------------------------------
# Heartbeats and nonces land in Redis when there is one (the broker's, unless named),
# else in the database (the embedded default; docs/adr/0006-device-credentials-and-heartbeats.md).
CASINO_DEVICE_STORE_URL = env_str(
    "CASINO_DEVICE_STORE_URL",
    CELERY_BROKER_URL if is_redis(CELERY_BROKER_URL) else "database",
)
CASINO_DEVICE_STORE_PREFIX = env_str("CASINO_DEVICE_STORE_PREFIX", "casino:devices:")
# Device secrets derive from this key (default: from SECRET_KEY; set it to rotate SECRET_KEY
# without re-keying every device).
CASINO_DEVICE_KEY = env_str("CASINO_DEVICE_KEY", "")
# A signed request is refused when its timestamp is further than this from now.
CASINO_DEVICE_CLOCK_SKEW_SECONDS = env_int("CASINO_DEVICE_CLOCK_SKEW_SECONDS", 30)
# Heartbeats read a credential from a per-process cache this old at most (a revocation
# still stops them at once: the store refuses a revoked key).
CASINO_DEVICE_CREDENTIAL_CACHE_SECONDS = env_int("CASINO_DEVICE_CREDENTIAL_CACHE_SECONDS", 300)
# After a rotation the old secret keeps working this long, so the device can switch.
CASINO_DEVICE_ROTATION_GRACE_SECONDS = env_int("CASINO_DEVICE_ROTATION_GRACE_SECONDS", 300)
# Per kind, [interval seconds, missed intervals before stale], over devices/rules.py's
# defaults, e.g. CASINO_DEVICE_HEARTBEATS='{"automated_shaker": [1, 3]}'.
CASINO_DEVICE_HEARTBEATS = env_json("CASINO_DEVICE_HEARTBEATS", {})
CELERY_BEAT_SCHEDULE["devices-watch"] = {
    "task": "monitoring.devices_watch",
    "schedule": env_int("CASINO_DEVICE_WATCH_SECONDS", 1),
    "options": {"expires": 5},
}
CELERY_BEAT_SCHEDULE["heartbeats-flush"] = {
    "task": "monitoring.heartbeats_flush",
    "schedule": env_int("CASINO_DEVICE_FLUSH_SECONDS", 10),
    "options": {"expires": 30},
}
# A round waiting on a device (the Pai Gow generator's number, an automated Sic Bo shaker's
# dice) this long after "no more bets" is an alert at its table (gaming/waits.py): a real
# generator shows its number at once and a shaker throws in seconds, so half a minute
# means something is wrong, and a dealer has not yet waited long. Beat looks every
# CASINO_DEVICE_WAIT_CHECK_SECONDS; the floor page and the API read it from the round.
CASINO_DEVICE_WAIT_SECONDS = env_int("CASINO_DEVICE_WAIT_SECONDS", 30)
if CASINO_DEVICE_WAIT_SECONDS < 1:
    raise ImproperlyConfigured(
        f"CASINO_DEVICE_WAIT_SECONDS={CASINO_DEVICE_WAIT_SECONDS}: expected 1 or more"
    )
CELERY_BEAT_SCHEDULE["device-waits-check"] = {
    "task": "monitoring.device_waits_check",
    "schedule": env_int("CASINO_DEVICE_WAIT_CHECK_SECONDS", 5),
    "options": {"expires": 30},
}

# --- Cache ------------------------------------------------------------------------------
# Shared by every web process: failed sign-in counts and throttles. Redis when there is one
# (CASINO_CACHE_URL, else the broker's), else files under CASINO_DATA_DIR (one machine).
CASINO_CACHE_URL = env_str(
    "CASINO_CACHE_URL",
    CELERY_BROKER_URL if is_redis(CELERY_BROKER_URL) else "",
)
CACHES = {
    "default": (
        {
            "BACKEND": "casino.cache.RedisCache",  # Django's, one client a process
            "LOCATION": CASINO_CACHE_URL,
            "KEY_PREFIX": "casino",
        }
        if CASINO_CACHE_URL
        else {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(DATA_DIR / "cache"),
        }
    )
}

# --- Security -------------------------------------------------------------------------
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
if PRODUCTION:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
    # Load balancers probe over plain http inside the network: answer them, never redirect.
    SECURE_REDIRECT_EXEMPT = [r"^health/$", r"^ready/$"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"

# --- Metrics (casino/metrics.py, casino/api/metrics.py, gaming/metrics.py) ---------------
# /metrics needs `Authorization: Bearer <this>` when set; without it /metrics is open in
# development and off (404) in production. 32 characters or more in production.
CASINO_METRICS_TOKEN = env_str("CASINO_METRICS_TOKEN", "")

# --- Logs (casino/logs.py) --------------------------------------------------------------
# JSON lines in production, text in development (CASINO_LOG_FORMAT overrides: json, plain);
# every line with the request id, table and round it belongs to. Beat's routine tasks'
# Celery lines (sent, received, succeeded) log at CASINO_ROUTINE_LOG_LEVEL: dropped at
# INFO by default; their failures still log.
CASINO_LOG_FORMAT = env_str("CASINO_LOG_FORMAT", "json" if PRODUCTION else "plain")
if CASINO_LOG_FORMAT not in ("json", "plain"):
    raise ImproperlyConfigured(f"CASINO_LOG_FORMAT={CASINO_LOG_FORMAT!r}: expected json or plain")
CASINO_ROUTINE_LOG_LEVEL = env_str("CASINO_ROUTINE_LOG_LEVEL", "DEBUG").upper()
if CASINO_ROUTINE_LOG_LEVEL not in ("DEBUG", "INFO"):
    raise ImproperlyConfigured(
        f"CASINO_ROUTINE_LOG_LEVEL={CASINO_ROUTINE_LOG_LEVEL!r}: expected DEBUG or INFO"
    )
CASINO_ROUTINE_TASKS = sorted({entry["task"] for entry in CELERY_BEAT_SCHEDULE.values()})
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {
            "()": "casino.logs.PlainFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s: %(message)s",
        },
        "json": {"()": "casino.logs.JsonFormatter"},
    },
    "filters": {
        "context": {"()": "casino.logs.ContextFilter"},
        "routine": {
            "()": "casino.logs.RoutineTasksQuiet",
            "tasks": CASINO_ROUTINE_TASKS,
            "level": CASINO_ROUTINE_LOG_LEVEL,
        },
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": CASINO_LOG_FORMAT,
            "filters": ["context", "routine"],
        }
    },
    "root": {"handlers": ["console"], "level": env_str("CASINO_LOG_LEVEL", "INFO")},
}

# --- Error tracking ---------------------------------------------------------------------
# Sentry (Django's and Celery's uncaught errors) when SENTRY_DSN is set; sentry_sdk is not
# imported otherwise. No personal data is sent.
SENTRY_DSN = env_str("SENTRY_DSN", "")
if SENTRY_DSN:
    sentry_init(
        SENTRY_DSN,
        environment=env_str("SENTRY_ENVIRONMENT", DJANGO_ENV),
        traces_sample_rate=env_float("SENTRY_TRACES_SAMPLE_RATE", 0.0),
    )
