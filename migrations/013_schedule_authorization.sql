-- The tenant's authorisation of a schedule's future charges: the sentence shown (and agreed to) on the page, its
-- wording's version, and when the tenant agreed. Null on schedules set up before the page asked for it.
ALTER TABLE schedules
  ADD COLUMN authorization_text text,
  ADD COLUMN authorization_version text,
  ADD COLUMN authorized_at timestamptz;
