"""The clients' API: submit a case, read where it is and what was released (`/api/v1/`)."""
