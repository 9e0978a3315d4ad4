-- The outbox trigger NOTIFYs unless the writing session opted out with
-- `outbox.notify = off`. A service's own pool opts out (`-c outbox.notify=off` at
-- connect): its writers wake their relay in process right after COMMIT, so a
-- NOTIFY would only cost a second read of the outbox and a commit in the relay's
-- session, which reads the notification queue in a transaction of its own. Any
-- other writer (another instance's relay passing on its writers' commits, a
-- script, psql) still wakes the relay through LISTEN/NOTIFY.
CREATE OR REPLACE FUNCTION "outbox_notify"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(current_setting('outbox.notify', true), '') <> 'off' THEN
    PERFORM pg_notify('outbox', '');
  END IF;
  RETURN NULL;
END;
$$;
