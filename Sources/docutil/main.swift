import DocUtilCLI

DocUtil.main()
