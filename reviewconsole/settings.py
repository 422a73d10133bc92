"""Settings for the review console, read from the environment (see docs/configuration.md).

With nothing set the console runs embedded: SQLite under var/ and tasks run in-process after
the transaction commits. DATABASE_URL and REDIS_URL switch to PostgreSQL and Celery workers.
"""

from __future__ import annotations

import hmac
import secrets
from datetime import timedelta
from pathlib import Path

from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from reviewconsole.databases import database_config
from reviewconsole.demo_mode import LOOPBACK_NETWORKS, demo_settings_check
from reviewconsole.env import env_bool, env_choice, env_float, env_int, env_list, env_networks, env_str, env_url
from reviewconsole.task_settings import *  # noqa: F403  (Celery reads them from this module)
from reviewconsole.task_settings import CELERY_TASK_ALWAYS_EAGER, REDIS_URL

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", False)
# Demo mode: the one-command local console. Relaxes what a real deployment must configure.
DEMO = env_bool("DEMO", False)
_LOCAL = DEBUG or DEMO


def _local_secret_key() -> str:
    # A local console keeps one random key in var/ so sessions survive restarts.
    path = VAR_DIR / "secret_key"
    if not path.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


_secret_key = env_str("SECRET_KEY")
if _secret_key is None and not _LOCAL:
    # The usual slip is a manage.py command on the demo checkout without the demo's DEMO=1.
    raise ImproperlyConfigured("SECRET_KEY must be set (or DEMO=1 on the local demo console)")
SECRET_KEY = _secret_key or _local_secret_key()

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"] if _LOCAL else [])
if not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS must be set (comma-separated host names)")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "reviewconsole.accounts",
    "reviewconsole.intake",
    "reviewconsole.review",
    "reviewconsole.webhooks",
    "reviewconsole.audit",
    "reviewconsole.outbox",
    "reviewconsole.mail",
    "reviewconsole.policy",
    "reviewconsole.support",
    "reviewconsole.workbench",
    "reviewconsole.api",
    "reviewconsole.team",
    # Counts failed sign-ins and locks out a username from an address after too many (see "Auth").
    "axes",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Content-Security-Policy on every response (CONTENT_SECURITY_POLICY below).
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes requires: it answers a locked-out sign-in with the lockout page.
    "axes.middleware.AxesMiddleware",
]

# The console serves its own scripts, styles and images and runs no inline code (console.js reads data-
# attributes instead of hx-on, charts colour with SVG attributes), so model and client text that slipped
# past escaping still could not run. 'data:' images: the browser's own form controls.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "font-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

ROOT_URLCONF = "reviewconsole.urls"
WSGI_APPLICATION = "reviewconsole.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "reviewconsole.accounts.context_processors.roles",
                "reviewconsole.policy.context_processors.canary",
            ],
        },
    },
]

# --- Database -----------------------------------------------------------------------------------

_database = database_config(VAR_DIR)
DATABASES = _database.databases
# Which role this process connects as, and the role the console runs as where two are configured.
DATABASE_ROLE = _database.role
DATABASE_RUNTIME_ROLE = _database.runtime_role
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
if DEMO:
    # DEMO=1 relaxes the key, hosts and cookies and allows `manage.py demo`: never beside a deployment's settings.
    demo_settings_check(database=DATABASES["default"], allowed_hosts=ALLOWED_HOSTS, redis_url=REDIS_URL)

# --- Tasks (Celery) -----------------------------------------------------------------------------

# Broker, queues, limits and the periodic schedule live in reviewconsole/task_settings.py.

# --- Intake and routing -------------------------------------------------------------------------

# Documented limits of POST /api/v1/cases; a body over API_MAX_BODY_BYTES is refused before parsing.
API_MAX_BODY_BYTES = env_int("API_MAX_BODY_BYTES", 2_000_000, minimum=10_000, maximum=50_000_000)
API_MAX_SOURCES = env_int("API_MAX_SOURCES", 50, minimum=1, maximum=1000)
API_MAX_SOURCE_CHARS = env_int("API_MAX_SOURCE_CHARS", 200_000, minimum=100)
API_MAX_ANSWER_CHARS = env_int("API_MAX_ANSWER_CHARS", 20_000, minimum=100)
API_MAX_QUESTION_CHARS = env_int("API_MAX_QUESTION_CHARS", 4_000, minimum=10)
# Django refuses larger bodies while reading them (the API also checks Content-Length up front).
DATA_UPLOAD_MAX_MEMORY_SIZE = API_MAX_BODY_BYTES
# Each client's default limits (a team admin may set its own), 0: none; per UTC day (intake/quotas.py says how).
CLIENT_REQUESTS_PER_SECOND = env_int("CLIENT_REQUESTS_PER_SECOND", 20, minimum=0, maximum=100_000)
CLIENT_CASES_PER_DAY = env_int("CLIENT_CASES_PER_DAY", 5_000, minimum=0)
CLIENT_BODY_BYTES_PER_DAY = env_int("CLIENT_BODY_BYTES_PER_DAY", 500_000_000, minimum=0)
# Share (0..1) of automatically released cases also queued for a person as spot checks.
SPOT_CHECK_RATE = env_float("SPOT_CHECK_RATE", 0.05, minimum=0.0, maximum=1.0)
# The release breaker counts the blind spot checks of this many days back (and since it last closed).
BREAKER_WINDOW_DAYS = env_int("BREAKER_WINDOW_DAYS", 30, minimum=1, maximum=3650)
STUCK_CASE_SECONDS = env_int("STUCK_CASE_SECONDS", 600, minimum=30)  # queued or running this long: re-enqueued
# How long "Next case" holds a case for one reviewer; the open case page renews it.
REVIEW_LEASE_SECONDS = env_int("REVIEW_LEASE_SECONDS", 300, minimum=30, maximum=86_400)
# How long a skipped case stays out of the skipper's "Next case" (long enough to look something up).
REVIEW_SKIP_SECONDS = env_int("REVIEW_SKIP_SECONDS", 15 * 60, minimum=60, maximum=86_400)
REVIEW_UNDO_SECONDS = env_int("REVIEW_UNDO_SECONDS", 30, minimum=0, maximum=600)  # undo window (webhooks wait it)

# --- Webhooks -----------------------------------------------------------------------------------

WEBHOOK_TIMEOUT_SECONDS = env_float("WEBHOOK_TIMEOUT_SECONDS", 10.0, minimum=1.0, maximum=120.0)
WEBHOOK_MAX_ATTEMPTS = env_int("WEBHOOK_MAX_ATTEMPTS", 8, minimum=1, maximum=30)
# Delay before retry n is WEBHOOK_BACKOFF_SECONDS * 2**(n-1), capped at WEBHOOK_BACKOFF_MAX_SECONDS.
WEBHOOK_BACKOFF_SECONDS = env_int("WEBHOOK_BACKOFF_SECONDS", 30, minimum=1)
WEBHOOK_BACKOFF_MAX_SECONDS = env_int("WEBHOOK_BACKOFF_MAX_SECONDS", 3600, minimum=1)
# Networks a webhook may reach although they are not public (loopback, private...): internal receivers only.
WEBHOOK_ALLOWED_NETWORKS = env_networks("WEBHOOK_ALLOWED_NETWORKS")
if DEMO:
    # The demo console runs on one machine, and so does a receiver someone tries it with (docs/webhooks.md).
    WEBHOOK_ALLOWED_NETWORKS += [network for network in LOOPBACK_NETWORKS if network not in WEBHOOK_ALLOWED_NETWORKS]

# --- Email ----------------------------------------------------------------------------------------

# Django's email framework, over the SMTP server the environment names. Without EMAIL_HOST, mail is written
# to the console (the demo, a local run): nothing is lost silently, and nothing needs a server.
EMAIL_HOST = env_str("EMAIL_HOST", "")
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST
                        else "django.core.mail.backends.console.EmailBackend")
EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1, maximum=65535)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
# STARTTLS unless the server speaks TLS from the first byte (EMAIL_USE_SSL, port 465).
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", not EMAIL_USE_SSL)
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured("EMAIL_USE_TLS and EMAIL_USE_SSL: set one of them, not both")
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10, minimum=1, maximum=120)
DEFAULT_FROM_EMAIL = env_str("EMAIL_FROM", "review-console@localhost")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# A send that fails is tried again after EMAIL_RETRY_SECONDS, doubling up to an hour, EMAIL_MAX_ATTEMPTS times.
EMAIL_MAX_ATTEMPTS = env_int("EMAIL_MAX_ATTEMPTS", 6, minimum=1, maximum=30)
EMAIL_RETRY_SECONDS = env_int("EMAIL_RETRY_SECONDS", 60, minimum=1, maximum=3600)

# --- Audit --------------------------------------------------------------------------------------

# Exports up to this many rows stream straight to the browser; larger ones run as a task into a file.
AUDIT_EXPORT_STREAM_MAX_ROWS = env_int("AUDIT_EXPORT_STREAM_MAX_ROWS", 100_000, minimum=0)
AUDIT_EXPORT_DIR = Path(env_str("AUDIT_EXPORT_DIR", str(VAR_DIR / "exports")))
# An export's file (the audit trail, readable by its owner alone) is removed this long after it was written.
AUDIT_EXPORT_RETENTION_HOURS = env_int("AUDIT_EXPORT_RETENTION_HOURS", 168, minimum=1, maximum=24 * 366)
# Seeds the Ed25519 key that signs tree heads, kept out of the database so whoever rewrites rows cannot sign;
# unset, derived from SECRET_KEY (set it in a deployment, so rotating SECRET_KEY keeps the audit key).
_audit_signing_key = env_str("AUDIT_SIGNING_KEY")
AUDIT_SIGNING_KEY = _audit_signing_key or hmac.new(SECRET_KEY.encode(), b"audit tree heads", "sha256").hexdigest()
# Every signed tree head is also appended here, one JSON line each, when set: a copy of the heads kept where
# the database cannot rewrite them (`audit_verify` checks the log against it). Best on another disk or host.
_audit_heads_file = env_str("AUDIT_HEADS_FILE")
AUDIT_HEADS_FILE: Path | None = Path(_audit_heads_file) if _audit_heads_file else None
# Base64 public keys of signing keys used before the current one: their heads still verify.
AUDIT_TRUSTED_PUBLIC_KEYS = env_list("AUDIT_TRUSTED_PUBLIC_KEYS", [])
# Without a broker nothing runs the periodic sealer: the local console seals once each transaction commits.
AUDIT_SEAL_ON_COMMIT = env_bool("AUDIT_SEAL_ON_COMMIT", CELERY_TASK_ALWAYS_EAGER and _LOCAL)
# `audit_verify` fails when an event has waited longer than this (seconds) to be sealed: the sealer is down.
AUDIT_MAX_UNSEALED_SECONDS = env_int("AUDIT_MAX_UNSEALED_SECONDS", 60, minimum=1)

# --- The verifier: the offline one's scorer, or a model endpoint (optional) -----------------------

# "learned": the shipped MiniLM cross-encoder (or VERIFICATION_MODEL_DIR's); "rules": no model. As the engine reads.
VERIFICATION_SCORER = env_choice("VERIFICATION_SCORER", "learned", choices=("learned", "rules"))
VERIFICATION_MODEL_DIR = env_str("VERIFICATION_MODEL_DIR")

LLM_BASE_URL = env_url("LLM_BASE_URL", schemes=("http", "https"))
LLM_API_KEY = env_str("LLM_API_KEY")
LLM_MODEL = env_str("LLM_MODEL", required=LLM_BASE_URL is not None)
LLM_TIMEOUT_SECONDS = env_float("LLM_TIMEOUT_SECONDS", 60.0, minimum=1.0, maximum=600.0)

# --- Auth ---------------------------------------------------------------------------------------

LOGIN_URL = "login"
# Where people reach this console: links printed outside a request (`manage.py user`) start with it.
CONSOLE_BASE_URL = env_url("CONSOLE_BASE_URL", schemes=("http", "https")) or "http://127.0.0.1:8000"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"
# A session ends this long after sign-in; a deactivated account's end at once (backends load only active users).
SESSION_COOKIE_AGE = env_int("SESSION_MAX_AGE_SECONDS", 12 * 3600, minimum=300, maximum=30 * 86_400)
# A set-password link stops working this long after it was made (Django's reset-token lifetime, in seconds).
SET_PASSWORD_LINK_HOURS = env_int("SET_PASSWORD_LINK_HOURS", 24, minimum=1, maximum=30 * 24)
PASSWORD_RESET_TIMEOUT = SET_PASSWORD_LINK_HOURS * 3600

# Single sign-on through OpenID Connect (mozilla-django-oidc), on when OIDC_CLIENT_ID is set. The
# provider's endpoints are given one by one, as its discovery document lists them; roles come from a
# claim (a list of group names) mapped by OIDC_ROLE_MAP ("idp-group=role,..."). Password sign-in stays.
OIDC_RP_CLIENT_ID = env_str("OIDC_CLIENT_ID")
OIDC_ENABLED = OIDC_RP_CLIENT_ID is not None
OIDC_RP_CLIENT_SECRET = env_str("OIDC_CLIENT_SECRET", required=OIDC_ENABLED)
OIDC_OP_AUTHORIZATION_ENDPOINT = env_url("OIDC_AUTHORIZATION_ENDPOINT", schemes=("http", "https"))
OIDC_OP_TOKEN_ENDPOINT = env_url("OIDC_TOKEN_ENDPOINT", schemes=("http", "https"))
OIDC_OP_USER_ENDPOINT = env_url("OIDC_USERINFO_ENDPOINT", schemes=("http", "https"))
OIDC_OP_JWKS_ENDPOINT = env_url("OIDC_JWKS_ENDPOINT", schemes=("http", "https"))
OIDC_RP_SIGN_ALGO = env_choice("OIDC_SIGN_ALGO", "RS256", choices=("RS256", "RS384", "RS512", "ES256", "HS256"))
OIDC_RP_SCOPES = env_str("OIDC_SCOPES", "openid email profile")
OIDC_PROVIDER_NAME = env_str("OIDC_PROVIDER_NAME", "single sign-on")
OIDC_ROLES_CLAIM = env_str("OIDC_ROLES_CLAIM", "groups")
OIDC_ROLE_MAP = env_str("OIDC_ROLE_MAP", "")
# Providers with a single signing key may leave the key id out of their tokens; then turn this off.
OIDC_VERIFY_KID = env_bool("OIDC_VERIFY_KID", True)
OIDC_TIMEOUT = env_float("OIDC_TIMEOUT_SECONDS", 10.0, minimum=1.0, maximum=60.0)
if OIDC_ENABLED:
    _missing = [
        name
        for name, value in (
            ("OIDC_AUTHORIZATION_ENDPOINT", OIDC_OP_AUTHORIZATION_ENDPOINT),
            ("OIDC_TOKEN_ENDPOINT", OIDC_OP_TOKEN_ENDPOINT),
            ("OIDC_USERINFO_ENDPOINT", OIDC_OP_USER_ENDPOINT),
            ("OIDC_JWKS_ENDPOINT", OIDC_OP_JWKS_ENDPOINT),
        )
        if value is None
    ]
    if _missing:
        raise ImproperlyConfigured(f"OIDC_CLIENT_ID is set, so these must be too: {', '.join(_missing)}")
# Where a refused single sign-on lands (a path: mozilla-django-oidc does not resolve names).
LOGIN_REDIRECT_URL_FAILURE = "/login/?sso=refused"

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
    *(["reviewconsole.team.sso.RoleMappingBackend"] if OIDC_ENABLED else []),
]
# Five wrong passwords for one username from one address lock that pair out for 15 minutes.
AXES_FAILURE_LIMIT = env_int("SIGN_IN_FAILURE_LIMIT", 5, minimum=1, maximum=100)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("SIGN_IN_LOCKOUT_MINUTES", 15, minimum=1, maximum=24 * 60))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_VERBOSE = False
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Security -----------------------------------------------------------------------------------

SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not _LOCAL)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not _LOCAL)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not _LOCAL)
# Load balancers probe over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
if env_bool("SECURE_PROXY_SSL_HEADER", False):
    # Only behind a proxy that sets X-Forwarded-Proto itself and strips it from clients.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
X_FRAME_OPTIONS = "DENY"

# --- Static files, time, logging ----------------------------------------------------------------

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
_static_root = Path(env_str("STATIC_ROOT", str(VAR_DIR / "staticfiles")))
if _LOCAL:
    # Served from the app folders (below), but WhiteNoise warns at start-up when STATIC_ROOT is missing.
    _static_root.mkdir(parents=True, exist_ok=True)
# Optional, as in Django: a settings module that never collects static files (the tests') sets None.
STATIC_ROOT: Path | None = _static_root
# Locally, serve straight from the app folders; a deployment runs collectstatic (docker-compose does).
WHITENOISE_USE_FINDERS = _LOCAL

LANGUAGE_CODE = "en-us"
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = False
USE_TZ = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # A refused request (4xx) is one line: its traceback would say nothing about the request.
    "formatters": {"console": {"()": "reviewconsole.logformat.ConsoleFormatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "console"}},
    "root": {
        "handlers": ["console"],
        "level": env_choice("LOG_LEVEL", "INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR")),
    },
    # django-axes logs every sign-in at INFO; lockouts are warnings and still show.
    "loggers": {"axes": {"level": "WARNING"}},
}

# Callables (dotted paths) that `manage.py demo` runs, in order: the demo constitutions' reviewer guidelines,
# then the demo cases, through the engine.
DEMO_CASE_LOADERS: list[str] = [
    "reviewconsole.policy.demo.load_demo_guidelines", "reviewconsole.intake.demo.load_demo_cases",
]

# --- Policy -------------------------------------------------------------------------------------

# A factory (dotted path) of the critic that calibration runs score: (rubric, constitution) -> Critic.
POLICY_CALIBRATION_CRITIC = env_str("POLICY_CALIBRATION_CRITIC", "reviewconsole.policy.calibration.console_critic")
