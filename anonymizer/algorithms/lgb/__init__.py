"""Local Generalization and Bucketization (LGB), paper 000 (Li and He, 2022)."""
