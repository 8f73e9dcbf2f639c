-- Payment methods beyond a new card (wallets, APMs) and saved cards.

-- Saved cards of a user (within its integrator): the processor's reusable token and display details only,
-- never card data. 'deleted' rows stay for the payments that name them.
CREATE TABLE saved_cards (
  id text PRIMARY KEY,
  integrator_id text NOT NULL REFERENCES integrators (id),
  user_id text NOT NULL REFERENCES users (id),
  processor text NOT NULL,
  processor_token text NOT NULL,
  -- The processor's card check while the card waits for 3DS; its notification makes the card active or failed.
  processor_setup_id text,
  -- SHA-256 of the card_token the card was saved from: the same token posted again is the same card.
  source_token_sha256 text NOT NULL,
  brand text NOT NULL,
  last4 text NOT NULL,
  exp_month integer NOT NULL,
  exp_year integer NOT NULL,
  status text NOT NULL CHECK (status IN ('requires_action', 'active', 'failed', 'deleted')),
  is_default boolean NOT NULL DEFAULT false,
  -- {"type": "three_ds", "url": "..."} while status = 'requires_action'.
  next_action jsonb,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK (NOT is_default OR status = 'active')
);
-- At most one default per user; only an active card can be it (CHECK above).
CREATE UNIQUE INDEX saved_cards_default_idx ON saved_cards (user_id) WHERE is_default;
CREATE UNIQUE INDEX saved_cards_source_idx ON saved_cards (user_id, source_token_sha256)
  WHERE status IN ('requires_action', 'active');
CREATE INDEX saved_cards_user_idx ON saved_cards (user_id, created_at DESC, id DESC);
CREATE INDEX saved_cards_setup_idx ON saved_cards (processor, processor_setup_id)
  WHERE processor_setup_id IS NOT NULL;

-- APM payments have no processor token; a payment with a saved card names it (internal).
ALTER TABLE payments ALTER COLUMN processor_token DROP NOT NULL;
ALTER TABLE payments ADD COLUMN saved_card_id text REFERENCES saved_cards (id);

-- Sandbox: wallet tokens (Apple Pay, Google Pay sheets) and APM charges, which have no token.
ALTER TABLE sandbox_tokens ADD COLUMN wallet text CHECK (wallet IN ('apple_pay', 'google_pay'));
ALTER TABLE sandbox_charges ALTER COLUMN token_id DROP NOT NULL;
ALTER TABLE sandbox_charges ADD COLUMN method text NOT NULL DEFAULT 'card';
