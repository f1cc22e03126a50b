"""Adapters to engines (Dask, Spark, Beam, river, torch.distributed) and training frameworks
(Lightning, Transformers, Keras, TensorBoard/MLflow loggers, scikit-learn scorers); each module
imports its engine or framework lazily."""
