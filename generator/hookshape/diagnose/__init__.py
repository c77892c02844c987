"""What is wired and how it runs: doctor's checks, the config survey, health, simulate."""
