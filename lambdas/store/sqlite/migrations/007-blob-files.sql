-- Large objects as files in the data folder's blobs/ folder (lambdas/store/sqlite-blob-files.ts): such a row keeps an
-- empty content and names its file. The partial index finds the files of a key range (a deleted inbox's) and every
-- named file (the orphan sweep) without reading any row's bytes.
ALTER TABLE blobs ADD COLUMN file TEXT;
CREATE INDEX IF NOT EXISTS blobs_in_files ON blobs (key, file) WHERE file IS NOT NULL;
