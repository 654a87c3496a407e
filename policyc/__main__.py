"""`python -m policyc ...`: the same command as `policyc ...`."""

from policyc.cli import main

if __name__ == "__main__":
    main()
