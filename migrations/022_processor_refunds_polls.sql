-- The processor's own id of a refund (Stripe's re_…): its later events (refund.updated, refund.failed) find the
-- refund by it. A refund the processor accepted but has not finished stays 'pending' until one of them says how it
-- ended; one that failed after it had succeeded is 'failed' with reversed_at set.
ALTER TABLE refunds ADD COLUMN processor_refund_id text;
ALTER TABLE refunds ADD COLUMN reversed_at timestamptz;
CREATE UNIQUE INDEX refunds_processor_refund_idx ON refunds (processor_refund_id) WHERE processor_refund_id IS NOT NULL;

-- When the processor was last asked about a waiting payment on a page's poll: it is asked at most once every few
-- seconds per payment, however many pages poll, and events carry the outcome in between.
ALTER TABLE payments ADD COLUMN processor_checked_at timestamptz;

-- A refund that failed after a payout had deducted its rent part gives that part back in the tenancy's next payout.
ALTER TABLE payout_lines DROP CONSTRAINT payout_lines_kind_check;
ALTER TABLE payout_lines DROP CONSTRAINT payout_lines_refund_check;
ALTER TABLE payout_lines ADD CONSTRAINT payout_lines_kind_check
  CHECK (kind IN ('payment', 'refund', 'dispute', 'refund_reversal'));
ALTER TABLE payout_lines ADD CONSTRAINT payout_lines_refund_check
  CHECK ((kind IN ('refund', 'refund_reversal')) = (refund_id IS NOT NULL));
CREATE UNIQUE INDEX payout_lines_refund_reversal_once ON payout_lines (refund_id) WHERE kind = 'refund_reversal' AND active;
