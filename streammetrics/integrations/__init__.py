"""Adapters to engines (Dask, Spark, Beam, river); each module imports its engine lazily."""
