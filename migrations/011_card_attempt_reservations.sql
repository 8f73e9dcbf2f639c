-- A card attempt is counted before the processor is asked (pending), so attempts made at the same moment cannot
-- all pass the limits; an issuer decline then confirms its row, any other outcome removes it.
ALTER TABLE card_declines ADD COLUMN pending boolean NOT NULL DEFAULT false;
CREATE INDEX card_declines_source_idx ON card_declines (source);
