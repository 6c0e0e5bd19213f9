"""Stage 3: the privacy firewall. Keyed pseudonyms, allowed names, content-free shapes, and the
constrained types every output model is built from. Nothing else may cross into an artifact."""
