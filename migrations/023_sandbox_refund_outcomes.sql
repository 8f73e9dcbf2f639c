-- The sandbox acquirer's refunds may end later, as a card network's do: a refund of its refund_pending test card
-- stays 'pending' until it is settled at the sandbox, and any refund may still end 'failed' (its amount given back
-- to the charge). Each refund gets an id of the sandbox's own, which its notifications carry; older rows have none.
ALTER TABLE sandbox_refunds ADD COLUMN id text;
CREATE UNIQUE INDEX sandbox_refunds_id_idx ON sandbox_refunds (id) WHERE id IS NOT NULL;
ALTER TABLE sandbox_refunds DROP CONSTRAINT sandbox_refunds_status_check;
ALTER TABLE sandbox_refunds ADD CONSTRAINT sandbox_refunds_status_check
  CHECK (status IN ('refunded', 'refused', 'pending', 'failed'));

-- A dispute of a sandbox charge: opened at the sandbox (of what was not refunded then), then won or lost.
ALTER TABLE sandbox_charges ADD COLUMN dispute_status text CHECK (dispute_status IN ('open', 'won', 'lost'));
ALTER TABLE sandbox_charges ADD COLUMN disputed_pence bigint;
