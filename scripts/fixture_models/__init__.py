"""The modules of scripts/make-fixture-models.py (one per family of fixture models)."""
