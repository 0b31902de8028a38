-- The race catalogue's SQL interface. The catalogue module owns meetings and race_starts; other
-- modules' set-based statements read what they need of it through these functions, never through
-- its tables, so the catalogue can grow (runners, prices, statuses) without breaking them.
-- PL/pgSQL, not SQL functions: PL/pgSQL keeps each statement's plan for the session, where a SQL
-- function with a FROM is planned again on every call.

-- The date of a meeting, or NULL when the catalogue does not list it.
CREATE FUNCTION catalogue_meeting_date(meeting bigint) RETURNS date
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  RETURN (SELECT meeting_date FROM meetings WHERE meeting_id = meeting);
END
$$;

-- The upload deadline of a racing day: 24 hours after the last race start the catalogue lists for
-- that day's meetings, else 24 hours after the end of the day in the given time zone.
CREATE FUNCTION catalogue_upload_deadline(racing_day date, time_zone text) RETURNS timestamptz
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  RETURN coalesce((SELECT max(rs.start_time) FROM meetings m JOIN race_starts rs ON rs.meeting_id = m.meeting_id
                   WHERE m.meeting_date = racing_day),
                  ((racing_day + 1)::timestamp AT TIME ZONE time_zone)) + interval '24 hours';
END
$$;
