"""Stage 4b: the conversion contract. The template binds the sources; the completed contract adds
the user's claims; validation checks the contract against a fresh reading of the sources."""
