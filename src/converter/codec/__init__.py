"""JSON in and out, shared by every stage: one canonical encoder (`canonical`) and one strict
reader for whole documents (`jsontext`)."""
