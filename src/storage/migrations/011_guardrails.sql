-- Guardrails (CONTRACT 6.6): what the request's guards did, as `guard:phase:action` items,
-- comma-separated; NULL when no guard acted. Never what a guard matched.
ALTER TABLE usage_requests ADD COLUMN guardrails TEXT;
