-- modelMap (CONTRACT 6.4): the name the client used, beside `model` (the upstream's id that
-- answered and was priced), where the slot's or deployment's modelMap sent another id; NULL
-- otherwise.
ALTER TABLE usage_requests ADD COLUMN client_model TEXT;
