-- Up Migration
-- Whether the database converts times in the zone of that name (AT TIME ZONE takes it). A tenant
-- stored before creation checked its zone may hold a name it refuses — one retired from tzdata,
-- such as Canada/East-Saskatchewan — and every statement converting a time in it fails: its
-- uploads are refused (409 tenant_misconfigured), and so are its users' bets, before any reserve.
-- Read with the tenant's row, so it must stay cheap: about a microsecond, where pg_timezone_names
-- reads every zone file (some 25 ms). The exception block is a subtransaction that writes nothing
-- (no XID); it is what keeps the function PARALLEL UNSAFE (the default): a parallel worker may not
-- start one.
CREATE FUNCTION time_zone_usable(zone text) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
BEGIN
  PERFORM now() AT TIME ZONE zone;
  RETURN true;
EXCEPTION WHEN invalid_parameter_value THEN
  RETURN false;
END
$$;
