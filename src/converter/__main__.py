from converter.entry import main

main()
