-- The role an MCP PostgreSQL server connects as: it may read the tables of one schema and nothing
-- else (docs/mcp-database.md). Run it as the owner of those tables (the default privileges below
-- cover the tables that role creates later), connected to the database the server reads:
--
--   psql "postgresql://owner@db.internal:5432/sales" -f infra/postgres/mcp-readonly.sql
--   psql "postgresql://owner@db.internal:5432/sales" -c "ALTER ROLE fleet_mcp_reader PASSWORD '…'"
--
-- It grants on the schema "public"; for another schema, replace "public" in the four GRANT lines.
-- Running it again changes nothing. Why a role at all: the query tool of
-- @modelcontextprotocol/server-postgres wraps each query in BEGIN TRANSACTION READ ONLY, and a
-- query that starts with "COMMIT;" leaves that transaction; only the role's privileges then stand
-- between the model and the data.

DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'fleet_mcp_reader') THEN
    CREATE ROLE fleet_mcp_reader LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT
      NOREPLICATION NOBYPASSRLS CONNECTION LIMIT 10;
  END IF;
END
$$;

-- Even outside the server's own transaction, its sessions start read-only and cannot run long.
ALTER ROLE fleet_mcp_reader SET default_transaction_read_only = on;
ALTER ROLE fleet_mcp_reader SET statement_timeout = '15s';
ALTER ROLE fleet_mcp_reader SET idle_in_transaction_session_timeout = '30s';

-- CONNECT to this database (whatever it is called) …
DO $$
BEGIN
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO fleet_mcp_reader', current_database());
END
$$;

-- … USAGE of the schema, SELECT on its tables and views, now and later. Nothing else: no INSERT,
-- UPDATE, DELETE, TRUNCATE, REFERENCES or TRIGGER, no CREATE in the schema, no ownership (so no
-- DROP or ALTER).
GRANT USAGE ON SCHEMA public TO fleet_mcp_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO fleet_mcp_reader;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO fleet_mcp_reader;
REVOKE CREATE ON SCHEMA public FROM fleet_mcp_reader;
