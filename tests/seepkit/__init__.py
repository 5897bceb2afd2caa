"""The tests' shared kit (imported as ``seepkit``: pyproject's pytest ``pythonpath`` puts tests/
on the path): position builders, the brute-force oracle, and the web tests' clients."""
