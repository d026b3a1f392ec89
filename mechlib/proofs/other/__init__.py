"""Claims from elsewhere (Brenner–Nissim; CLAIMS.md note 1): one module per claim, named after the paper's numbering."""
