from converter.cli.main import main

main()
