-- Raw mail (and attachments, as the base64 in it) kept where the inbound spool put it
-- (lambdas/store/sqlite-held-segments.ts): such a row keeps an empty content and names the spool segment, the offset
-- of its bytes in it, their length and their encoding (NULL: as they are; 'base64'). The partial index answers
-- whether any row still names a segment (which is removed once none does) without reading any row's bytes.
ALTER TABLE blobs ADD COLUMN segment INTEGER;
ALTER TABLE blobs ADD COLUMN segment_offset INTEGER;
ALTER TABLE blobs ADD COLUMN segment_length INTEGER;
ALTER TABLE blobs ADD COLUMN segment_encoding TEXT;
CREATE INDEX IF NOT EXISTS blobs_by_segment ON blobs (segment) WHERE segment IS NOT NULL;
