"""The assessment of a design (check) and the review built from it alone (review)."""
