-- Up Migration
-- The claim names the wallet configuration its caller will send with (the configuration's
-- updated_at, to the millisecond: what the worker read). When the tenant's configuration changed
-- since, nothing is claimed and the claim fails with SQLSTATE WLCFG: the worker reads the
-- configuration again and claims with it. So a call claimed after `set-wallet` committed is never
-- sent to the URL, or with the credentials, the configuration had before (docs/wallet.md).
-- Otherwise as in 0003_wallet.sql.
DROP FUNCTION wallet_claim(uuid, timestamptz, integer, integer, text, timestamptz);

CREATE FUNCTION wallet_claim(p_tenant uuid, p_now timestamptz, p_max integer, p_limit integer,
                             p_owner text, p_lease_until timestamptz, p_config_at timestamptz)
RETURNS SETOF wallet_calls LANGUAGE plpgsql AS $$
DECLARE
  v_free integer;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('wallet_claim:' || p_tenant::text, 0));
  -- Read after the lock, in a snapshot of its own: a change committed before this claim is seen.
  IF p_config_at IS DISTINCT FROM (SELECT date_trunc('milliseconds', updated_at) FROM wallet_configs WHERE tenant_id = p_tenant) THEN
    RAISE EXCEPTION 'the wallet configuration of tenant % changed since it was read', p_tenant USING ERRCODE = 'WLCFG';
  END IF;
  WITH expired AS (
    UPDATE wallet_calls SET status = 'pending', attempts = attempts + 1
     WHERE tenant_id = p_tenant AND status = 'sending' AND lease_until <= p_now AND op <> 'reserve'
    RETURNING tenant_id, transaction_id, attempts, lease_until, lease_owner)
  INSERT INTO wallet_call_attempts (tenant_id, transaction_id, attempt, started_at, duration_ms, outcome, error, worker)
  SELECT tenant_id, transaction_id, attempts, lease_until, 0, 'interrupted',
         'lease expired: the sender stopped before recording a result; sending again', lease_owner
    FROM expired
  ON CONFLICT DO NOTHING;

  SELECT p_limit - count(*) INTO v_free FROM wallet_calls
   WHERE tenant_id = p_tenant AND status = 'sending' AND lease_until > p_now;
  IF least(v_free, p_max) <= 0 THEN RETURN; END IF;
  RETURN QUERY
  UPDATE wallet_calls w
     SET status = 'sending', lease_owner = p_owner, lease_until = p_lease_until
   WHERE (w.tenant_id, w.transaction_id) IN (
     SELECT c.tenant_id, c.transaction_id FROM wallet_calls c
      WHERE c.tenant_id = p_tenant AND c.status = 'pending' AND c.next_attempt_at <= p_now
        -- A correlated scalar subquery (always a per-row index probe, never a join whose plan
        -- depends on statistics): c must be the lowest open call of its bet.
        AND c.seq = (SELECT min(p.seq) FROM wallet_calls p
                      WHERE p.tenant_id = c.tenant_id AND p.bet_id = c.bet_id
                        AND p.status IN ('pending', 'sending', 'failed'))
      ORDER BY c.next_attempt_at
      LIMIT least(v_free, p_max)
      FOR UPDATE OF c SKIP LOCKED)
  RETURNING w.*;
END $$;
