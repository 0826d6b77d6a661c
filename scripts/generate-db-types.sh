#!/usr/bin/env bash
# Regenerates src/db/schema.generated.ts from the migrations, against a scratch PostgreSQL database.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${DB_TYPES_SERVER:-postgres://postgres@127.0.0.1:5432}
NAME=civic_types_$$
psql "$BASE/postgres" -qc "CREATE DATABASE $NAME"
trap 'psql "$BASE/postgres" -qc "DROP DATABASE IF EXISTS $NAME"' EXIT
DATABASE_URL="$BASE/$NAME" node bin/civic-survey.js migrate >/dev/null
npx kysely-codegen --dialect postgres --url "$BASE/$NAME" --date-parser string \
  --exclude-pattern 'kysely_*' --out-file src/db/schema.generated.ts ${VERIFY:+--verify}
