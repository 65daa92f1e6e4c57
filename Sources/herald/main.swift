import HeraldCLI
HeraldCommand.main()
