/* A file that breaks one rule of scripts/checksrc (named by the file). */
int f(int a)
{
	if (a)
	{
		return 1;
	}
	return 0;
}
