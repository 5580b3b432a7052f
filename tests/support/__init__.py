"""What the project's tests share: nested conformance runs, DDS domains, pipeline runs."""
