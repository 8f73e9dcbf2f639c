-- When a succeeded payment's funds reach the balance rent is paid out of, and whether it is disputed. A payment is
-- payable to the landlord once its funds are available (the sandbox: at once; Stripe: its balance transaction's
-- available_on, read by a `payment.settlement` job) and it is not under dispute or lost to one.
ALTER TABLE payments ADD COLUMN funds_available_at timestamptz;
ALTER TABLE payments ADD COLUMN dispute_status text CHECK (dispute_status IN ('open', 'won', 'lost'));
-- When the payment was lost to a dispute, and how much of it the dispute took back (all of it, or part of it when only
-- part was disputed): from that day the tenant owes that much again, like a refund of it.
ALTER TABLE payments ADD COLUMN dispute_lost_at timestamptz;
ALTER TABLE payments ADD COLUMN dispute_amount_pence bigint CHECK (dispute_amount_pence > 0);
-- Payments that succeeded before settlement was followed were payable from the day they were made; they stay so
-- (updated_at would move with a later refund, and make reconcile doubt a payout already made).
UPDATE payments SET funds_available_at = created_at WHERE status = 'succeeded';

-- A dispute lost after the payment was paid out: minus its rent part (refunds and disputes give the rent back first,
-- the fee last), carried into the tenancy's next payout as a refund after payout is.
ALTER TABLE payout_lines DROP CONSTRAINT payout_lines_kind_check;
ALTER TABLE payout_lines DROP CONSTRAINT payout_lines_check;
ALTER TABLE payout_lines ADD CONSTRAINT payout_lines_kind_check CHECK (kind IN ('payment', 'refund', 'dispute'));
ALTER TABLE payout_lines ADD CONSTRAINT payout_lines_refund_check CHECK ((kind = 'refund') = (refund_id IS NOT NULL));
CREATE UNIQUE INDEX payout_lines_dispute_once ON payout_lines (payment_id) WHERE kind = 'dispute' AND active;
