"""The workbench's pages; each view validates, calls one function, renders."""
