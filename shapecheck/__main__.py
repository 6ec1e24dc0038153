"""``python -m shapecheck`` runs the command line."""

from shapecheck.entry import main

if __name__ == "__main__":
    main()
