-- Up Migration
-- The race numbers the catalogue lists for a meeting, ascending; NULL when it does not list the
-- meeting at all. Part of the catalogue's SQL interface (0005): the upload reads it in the same
-- statement as its context, to warn about a race the meeting's catalogue does not list.
CREATE FUNCTION catalogue_meeting_races(meeting bigint) RETURNS integer[]
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM meetings WHERE meeting_id = meeting) THEN
    RETURN NULL;
  END IF;
  RETURN coalesce((SELECT array_agg(race_number ORDER BY race_number) FROM race_starts WHERE meeting_id = meeting), '{}');
END
$$;
