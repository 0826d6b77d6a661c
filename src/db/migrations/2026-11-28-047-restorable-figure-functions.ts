import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

const COUNTS = 'c1 double precision, c2 double precision, c3 double precision, c4 double precision, c5 double precision'

/**
 * The likert functions behind the stored figures' generated columns name the functions they call with their schema.
 * pg_restore computes generated columns while it loads the rows, with an empty search_path: unqualified, the calls
 * found nothing and no backup of a database could be restored (docs/operations.md, Backups and restores). The same
 * bodies as migration 022's, the same signatures: the running release is unaffected (expand only).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE OR REPLACE FUNCTION likert_value(${COUNTS}) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  n double precision := c1 + c2 + c3 + c4 + c5;
  lone integer := public.likert_unanimous(c1, c2, c3, c4, c5);
BEGIN
  IF n = 0 THEN RETURN 0; END IF;
  IF lone > 0 THEN RETURN lone; END IF;
  RETURN least(5, greatest(1, public.likert_sum(c1, c2, c3, c4, c5) / n));
END
$$;

CREATE OR REPLACE FUNCTION likert_heat(${COUNTS}) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  n double precision := c1 + c2 + c3 + c4 + c5;
  lone integer := public.likert_unanimous(c1, c2, c3, c4, c5);
  total double precision;
BEGIN
  IF n = 0 THEN RETURN 0; END IF;
  IF lone > 0 THEN RETURN abs(lone - 3) / 2.0; END IF;
  total := 0 + (c1 / n) * 2 + (c2 / n) * 1 + (c3 / n) * 0 + (c4 / n) * 1 + (c5 / n) * 2;
  RETURN least(1, greatest(0, total / 2));
END
$$;

-- Tastle & Wierman (2007).
CREATE OR REPLACE FUNCTION likert_consensus(${COUNTS}) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  n double precision := c1 + c2 + c3 + c4 + c5;
  p double precision[];
  mu double precision := 0;
  total double precision := 1;
  i integer;
BEGIN
  IF n = 0 THEN RETURN 0; END IF;
  IF public.likert_unanimous(c1, c2, c3, c4, c5) > 0 THEN RETURN 1; END IF;
  p := ARRAY[c1 / n, c2 / n, c3 / n, c4 / n, c5 / n];
  FOR i IN 1..5 LOOP mu := mu + p[i] * i; END LOOP;
  mu := least(5, greatest(1, mu));
  FOR i IN 1..5 LOOP
    IF p[i] > 0 THEN
      total := total + p[i] * (ln(greatest(1 - abs(i - mu) / 4, p[i])) / ln(2.0::double precision));
    END IF;
  END LOOP;
  RETURN least(1, greatest(0, total));
END
$$;
`,
  )
}
