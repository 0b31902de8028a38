-- Up Migration
-- The places a race pays, fixed by its first result from the place terms in force and its starters
-- then, and carried by every later version: an amended result settles by the terms the race was
-- run under, not by terms changed since (docs/settlement.md, Places paid).
ALTER TABLE race_results ADD COLUMN places_paid integer CHECK (places_paid >= 0);

-- Results recorded before: the places their last settlement read (today's terms of the meeting's
-- jurisdiction, or '*', and the race's starters), the rule of racing/results.ts placesPaid().
UPDATE race_results x SET places_paid = coalesce((
    SELECT (t->>'places')::int
      FROM jsonb_array_elements(coalesce(
             (SELECT terms FROM place_terms WHERE jurisdiction = m.jurisdiction),
             (SELECT terms FROM place_terms WHERE jurisdiction = '*'), '[]'::jsonb)) AS t
     WHERE (t->>'min_starters')::int <= (SELECT count(*) FROM runners u
                                          WHERE u.meeting_id = x.meeting_id AND u.race_number = x.race_number AND NOT u.scratched)
     ORDER BY (t->>'min_starters')::int DESC LIMIT 1), 0)
  FROM meetings m WHERE m.meeting_id = x.meeting_id;

-- Every result has its places from here on (results.queries.ts insertResult).
ALTER TABLE race_results ALTER COLUMN places_paid SET NOT NULL;
