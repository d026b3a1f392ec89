"""What several claims' checks share: the papers' printed matrices, SMT encodings, symbolic
identities, generators of random instances, privacy-set and UPRR helpers."""
