-- The two database roles of a deployment (docs/deployment.md, "Two database roles"). The postgres image runs this once,
-- as its superuser, in the console's database, when it starts on an empty data volume (docker-compose.yml
-- mounts it into /docker-entrypoint-initdb.d). Passwords come from the container's environment (psql 15+).
--
--   reviewconsole_owner  owns the database, its schema and every table: `manage.py migrate` runs as it
--                        (DATABASE_ROLE=owner with MIGRATION_DATABASE_URL).
--   reviewconsole_app    what the console runs as (DATABASE_URL). Owns nothing: it reads and writes the rows
--                        `migrate` grants it (reviewconsole/audit/roles.py), and cannot alter, disable,
--                        truncate or drop the audit log, or anything else.
--
-- Safe to run again, e.g. by hand on a database made before the split (docs/deployment.md says how): it sets the
-- passwords anew and hands every table and function in the schema to the owner.

\set ON_ERROR_STOP on
\getenv owner_password POSTGRES_OWNER_PASSWORD
\getenv app_password POSTGRES_APP_PASSWORD
-- An unset password leaves its variable unset: the ALTER ROLE below then fails, and so does the start.

SELECT 'CREATE ROLE reviewconsole_owner' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'reviewconsole_owner')
\gexec
ALTER ROLE reviewconsole_owner WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
    PASSWORD :'owner_password';

SELECT 'CREATE ROLE reviewconsole_app' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'reviewconsole_app')
\gexec
ALTER ROLE reviewconsole_app WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
    PASSWORD :'app_password';

-- The database and its schema belong to the owner; no other role may create anything in them or connect.
SELECT format('ALTER DATABASE %I OWNER TO reviewconsole_owner', current_database())
\gexec
SELECT format('REVOKE ALL ON DATABASE %I FROM PUBLIC', current_database())
\gexec
SELECT format('GRANT CONNECT ON DATABASE %I TO reviewconsole_app', current_database())
\gexec
ALTER SCHEMA public OWNER TO reviewconsole_owner;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;

-- Tables (their indexes and id sequences follow them), views and functions made before the split, by
-- whichever role ran `migrate` then, become the owner's. On a new database there are none.
DO $$
DECLARE
    object record;
BEGIN
    FOR object IN
        SELECT c.oid::regclass AS name FROM pg_class c
        WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm')
          AND c.relowner <> 'reviewconsole_owner'::regrole
    LOOP
        EXECUTE format('ALTER TABLE %s OWNER TO reviewconsole_owner', object.name);
    END LOOP;
    FOR object IN
        SELECT p.oid::regprocedure AS name FROM pg_proc p
        WHERE p.pronamespace = 'public'::regnamespace AND p.proowner <> 'reviewconsole_owner'::regrole
    LOOP
        EXECUTE format('ALTER FUNCTION %s OWNER TO reviewconsole_owner', object.name);
    END LOOP;
END
$$;
