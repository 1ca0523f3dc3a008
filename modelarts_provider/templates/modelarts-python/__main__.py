from modelarts_provider.stack.run import main

main()
