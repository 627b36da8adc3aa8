"""`dclint capacity`: how many more racks fit (`headroom`), from the power (`power`), cooling
(`cooling`) and facility (`facility`) limits, each a `limits.Limit`."""
