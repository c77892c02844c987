from hookshape.cli import main

main()
