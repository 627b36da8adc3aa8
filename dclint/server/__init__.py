"""The editor server: `workspace` (buffers, includers, checks) and `hover` are plain Python;
`lsp` speaks the Language Server Protocol on pygls (the `server` extra)."""
