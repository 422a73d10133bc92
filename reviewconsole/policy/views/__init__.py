"""The policy admin's pages, one module per concern; each view validates, calls one service, renders."""
