"""Settings for the test suite: the real settings, with what a test run cannot supply from outside."""

from __future__ import annotations

import os

os.environ.setdefault("SECRET_KEY", "test-suite-only-secret-key-not-for-any-deployment-0123456789")
os.environ.setdefault("ALLOWED_HOSTS", "testserver,localhost,127.0.0.1")

from reviewconsole.settings import *  # noqa: E402,F403

# The test client and the browser tests speak plain HTTP.
SECURE_SSL_REDIRECT = False
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False

# Hashing with the production hasher costs ~0.3 s per login; tests log in hundreds of times.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Tests never run collectstatic: serve static files from the app folders, as a local console does.
STATIC_ROOT = None
WHITENOISE_USE_FINDERS = True

# Spot checks are drawn at random; tests that exercise them set the share themselves.
SPOT_CHECK_RATE = 0.0

# Tests submit from a handful of clients as fast as they run; the limits' own tests set the limits they test.
CLIENT_REQUESTS_PER_SECOND = CLIENT_CASES_PER_DAY = CLIENT_BODY_BYTES_PER_DAY = 0

# Transactional tests empty every table with TRUNCATE at teardown, and the audit log's tables refuse it
# (audit migration 0005) unless the session sets this switch. Only the suite sets it: a deployment never does.
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":  # noqa: F405
    _options = DATABASES["default"].setdefault("OPTIONS", {})  # noqa: F405
    _options["options"] = f"{_options.get('options', '')} -c reviewconsole.allow_audit_truncate=on".strip()
