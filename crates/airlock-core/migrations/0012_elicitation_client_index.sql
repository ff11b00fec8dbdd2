-- The activity overview ranks apps by the requests their calls raised
-- (issue 13): one index range per app, only over the rows an app caused
-- (Airlock's own requests have no client and stay out of the index).
CREATE INDEX elicitations_client ON elicitations(client, created_at) WHERE client IS NOT NULL;
