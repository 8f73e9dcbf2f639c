-- The processor's customer object for a user (Stripe: one Customer per user, its saved cards attached to it).
CREATE TABLE processor_customers (
  processor text NOT NULL,
  user_id text NOT NULL REFERENCES users (id),
  customer_id text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (processor, user_id)
);
