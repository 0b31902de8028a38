-- Up Migration
-- The upload deadline of a racing day never fails on a tenant's zone. PL/pgSQL plans its RETURN
-- expression with the arguments as constants, so the conversion in the zone was folded, and failed,
-- even for a day with races, where the coalesce never needed it: with one tenant stored with a
-- zone the database refuses (0021), settling that tenant's bets failed (they are reported with
-- their deadline), and so did recomputing every tenant's deadlines when the catalogue moved a
-- meeting. Now the zone is read only for a day without races, and a zone the database refuses is
-- read as UTC there (uploads never get here with one: they are refused first, 409). It calls
-- time_zone_usable, so it is no longer PARALLEL SAFE; only writing statements call it, which are
-- never run in parallel.
CREATE OR REPLACE FUNCTION catalogue_upload_deadline(racing_day date, time_zone text) RETURNS timestamptz
LANGUAGE plpgsql STABLE PARALLEL UNSAFE AS $$
DECLARE
  last_start timestamptz;
BEGIN
  SELECT max(rs.start_time) INTO last_start FROM meetings m JOIN race_starts rs ON rs.meeting_id = m.meeting_id
   WHERE m.meeting_date = racing_day;
  IF last_start IS NOT NULL THEN
    RETURN last_start + interval '24 hours';
  END IF;
  RETURN ((racing_day + 1)::timestamp AT TIME ZONE CASE WHEN time_zone_usable(time_zone) THEN time_zone ELSE 'UTC' END) + interval '24 hours';
END
$$;
