-- The admin API's guardrail report (GET /admin/api/guardrails) counts the requests a guard acted
-- on in a range: this index holds only those rows (guardrails is NULL when no guard acted), so the
-- report reads what the guards did without reading every request of the range.
CREATE INDEX usage_requests_guardrails ON usage_requests (created_at) WHERE guardrails IS NOT NULL;
