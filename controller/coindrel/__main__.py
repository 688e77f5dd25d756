from coindrel.cli import main

raise SystemExit(main())
