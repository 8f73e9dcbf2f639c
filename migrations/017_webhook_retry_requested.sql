-- `webhooks retry-pending` while an attempt is under way: the attempt's job is not pending, so it cannot be brought
-- forward; this marks the delivery instead, and a failed attempt that started before the mark retries at once.
ALTER TABLE webhook_deliveries ADD COLUMN retry_requested_at timestamptz;
